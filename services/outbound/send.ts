import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { TargetPolicy } from '../../domain/address-check.js';
import { checkTarget, systemResolver, type Resolver } from './target.js';

export interface OutboundPost {
  url: string;
  headers: Record<string, string>;
  /** Sent as it is; a Buffer is not copied again on its way to the socket. */
  body: string | Buffer;
  timeoutMs: number;
  policy: TargetPolicy;
  resolve?: Resolver;
  /** Keep up to this many bytes of the reply body (pushes read the plugin's answer). */
  keepReplyBytes?: number;
  /** Keep-alive agents to reuse connections (and TLS sessions) across POSTs; a new connection each time without. */
  agents?: OutboundAgents;
}

export interface OutboundAgents {
  http: http.Agent;
  https: https.Agent;
}

/**
 * Agents for a run of many POSTs: connections are reused, but an idle one is closed after a second,
 * well before servers close idle connections (5 s and more), so a reused connection is not one the
 * server is closing (which would fail the one attempt). Destroy them when the run ends.
 * `maxFreeSockets` is per host and port: keep as many as the run may have in flight to one host (many
 * stores' endpoints can be one receiving service, a plugin platform's say); with fewer, every send past
 * that number opened a new connection and closed it after its answer (16 cost a dispatcher draining
 * 300 endpoints of one host a connect and a close per delivery, a third of its CPU).
 */
export function keepAliveAgents(maxFreeSockets = 256): OutboundAgents & { destroy(): void } {
  const options = { keepAlive: true, timeout: 1000, maxFreeSockets };
  const agents = { http: new http.Agent(options), https: new https.Agent(options) };
  return { ...agents, destroy: () => (agents.http.destroy(), agents.https.destroy()) };
}

export interface OutboundResult {
  /** HTTP status, or null when no answer came. */
  status: number | null;
  ok: boolean;
  error: string | null;
  durationMs: number;
  reply: string;
}

export const USER_AGENT = 'StoreCommerce-Webhooks/1.0 (+https://store-commerce.invalid/docs/webhooks)';

/**
 * One POST, never retried: the target is checked and its address pinned, redirects are not followed
 * (a 3xx is a failure), and the whole exchange, name resolution included, must finish within timeoutMs.
 */
export async function postOnce(req: OutboundPost): Promise<OutboundResult> {
  const deadline = exchangeDeadline(req.timeoutMs);
  return exchange(req, deadline.signal).finally(deadline.clear);
}

/**
 * One deadline for the whole exchange, name resolution included (a slow DNS answer cannot stretch it),
 * whose timer is dropped once the exchange is over. AbortSignal.timeout's cannot be: every POST's timer
 * fired 8 s after its answer, built a TimeoutError and dispatched it to nobody (about 1 % of a
 * dispatcher's CPU in the many-store benchmark), and kept the signal alive until then.
 */
function exchangeDeadline(timeoutMs: number): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
  // As AbortSignal.timeout's: the deadline alone does not keep the process running.
  timer.unref();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

async function exchange(req: OutboundPost, deadline: AbortSignal): Promise<OutboundResult> {
  const started = performance.now();
  const done = (status: number | null, error: string | null, reply = ''): OutboundResult => ({
    status,
    ok: error === null && status !== null && status >= 200 && status < 300,
    error,
    durationMs: Math.round(performance.now() - started),
    reply,
  });
  const expiry = nullOnAbort(deadline);
  const target = await Promise.race([checkTarget(req.url, req.policy, req.resolve ?? systemResolver), expiry.promise]).finally(expiry.stop);
  if (target === null) return done(null, `no answer within ${req.timeoutMs} ms (the host name did not resolve in time)`);
  // The check comes before any connection: a refused target is never sent a packet.
  if (!target.ok) return done(null, `refused: ${target.reason}`);
  const { url, address, family } = target;
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<OutboundResult>((resolve) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) },
        lookup: pinned,
        // A pooled connection was made to an address checked like this one (its own lookup was pinned).
        agent: req.agents ? (url.protocol === 'https:' ? req.agents.https : req.agents.http) : false,
        signal: deadline,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        const limit = req.keepReplyBytes ?? 0;
        response.on('data', (chunk: Buffer) => {
          if (kept < limit) {
            chunks.push(chunk);
            kept += chunk.length;
          }
        });
        response.on('end', () => {
          const status = response.statusCode ?? null;
          const error =
            status !== null && status >= 300 && status < 400
              ? `redirect to ${boundedText(response.headers.location ?? '?')} not followed`
              : status !== null && (status < 200 || status >= 300)
                ? `answered ${status}`
                : null;
          resolve(done(status, error, Buffer.concat(chunks).toString('utf8').slice(0, limit)));
        });
        response.on('error', (err) =>
          resolve(
            done(response.statusCode ?? null, deadline.aborted ? `the answer did not finish within ${req.timeoutMs} ms` : err.message),
          ),
        );
      },
    );
    request.on('error', (err: Error & { code?: string }) => {
      const timedOut = err.name === 'AbortError' || err.name === 'TimeoutError' || err.code === 'ABORT_ERR';
      resolve(done(null, timedOut ? `no answer within ${req.timeoutMs} ms` : `${err.code ?? 'error'}: ${err.message}`));
    });
    request.end(req.body);
  });
}

/** Null once `signal` aborts; `stop` removes the listener, which would otherwise hold this POST (its body included). */
function nullOnAbort(signal: AbortSignal): { promise: Promise<null>; stop(): void } {
  let onAbort = () => {};
  const promise = new Promise<null>((expired) => (onAbort = () => expired(null)));
  signal.addEventListener('abort', onAbort, { once: true });
  return { promise, stop: () => signal.removeEventListener('abort', onAbort) };
}

/** A receiver's header can be 16 KB; what of it lands in delivery rows and activity results is bounded. */
const MAX_ECHOED_CHARS = 200;
const boundedText = (text: string) => (text.length > MAX_ECHOED_CHARS ? `${text.slice(0, MAX_ECHOED_CHARS)}…` : text);
