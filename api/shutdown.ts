// How an API process leaves a pool of replicas without failing a request: first it says so on /readyz
// while still serving, so a proxy that polls readiness stops routing to it; then it stops accepting,
// finishes what is in flight and closes its keep-alive sockets, all within a bound.
import type { FastifyInstance } from 'fastify';

/**
 * How long a draining process keeps serving new requests after /readyz turns 503: longer than two
 * readiness polls of the proxy in front (the production Caddyfile polls every second), so by the time
 * the listener closes no proxy still sends it anything.
 */
export const DRAIN_MS = 3000;
/** The most a shutdown waits for in-flight requests before it cuts their connections. */
export const CLOSE_TIMEOUT_MS = 20_000;

export interface ShutdownOptions {
  /** Keep serving for this long with /readyz at 503 before closing the listener (0: close at once). */
  drainMs: number;
  closeTimeoutMs: number;
}

/**
 * Drains and closes the app: /readyz 503 at once, requests served for drainMs, then no new connection,
 * in-flight requests finished, idle keep-alive sockets closed. Resolves true when everything finished
 * in time, false when the timeout cut connections that were still busy.
 */
export async function drainAndClose(app: FastifyInstance, { drainMs, closeTimeoutMs }: ShutdownOptions): Promise<boolean> {
  app.lifecycle.draining = true;
  app.log.info({ drainMs }, 'shutting down: /readyz answers 503, still serving while proxies stop routing here');
  if (drainMs > 0) await new Promise((r) => setTimeout(r, drainMs));
  app.log.info('shutting down: listener closed, finishing in-flight requests');
  // server.close() closes the sockets idle at that instant only; a socket whose request finishes later
  // would stay open for its keep-alive time, so idle ones are closed again until the server is gone.
  const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((done) => (timer = setTimeout(() => done(false), closeTimeoutMs)));
  try {
    const finished = await Promise.race([app.close().then(() => true as const), timedOut]);
    if (!finished) {
      app.log.warn({ closeTimeoutMs }, 'shutting down: requests still in flight after the timeout, connections cut');
      app.server.closeAllConnections();
    }
    return finished;
  } finally {
    clearInterval(sweep);
    clearTimeout(timer);
  }
}
