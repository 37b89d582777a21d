// A tiny round-robin reverse proxy on loopback that behaves like the production Caddyfile: it polls each
// backend's /readyz and routes only to ready ones, keeps upstream connections alive, and tries the next
// backend when a connection cannot be opened (nothing was sent yet, so any method may be tried again).
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';

export interface Backend {
  port: number;
  ready: boolean;
  /** Readiness answers seen, by status (0: no answer), to show a drain was noticed. */
  seen: Record<number, number>;
}

/** Starts the proxy in front of the given backend ports; resolves once it listens. */
export async function startProxy(ports: number[], pollMs = 250) {
  const backends: Backend[] = ports.map((port) => ({ port, ready: false, seen: {} }));
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  let next = 0;
  let retriedDials = 0;

  const poll = async (b: Backend) => {
    const status = await fetch(`http://127.0.0.1:${b.port}/readyz`, { signal: AbortSignal.timeout(1000) })
      .then(async (r) => (await r.arrayBuffer(), r.status))
      .catch(() => 0);
    b.seen[status] = (b.seen[status] ?? 0) + 1;
    b.ready = status === 200;
  };
  await Promise.all(backends.map(poll));
  const timer = setInterval(() => void Promise.all(backends.map(poll)), pollMs);

  const pick = (exclude: Set<Backend>) => {
    const ready = backends.filter((b) => b.ready && !exclude.has(b));
    return ready.length ? ready[next++ % ready.length] : undefined;
  };

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, tried: Set<Backend>) => {
    const b = pick(tried);
    if (!b) return void res.writeHead(502, { 'content-type': 'text/plain' }).end('no ready backend');
    tried.add(b);
    const up = request(
      { host: '127.0.0.1', port: b.port, method: req.method, path: req.url, headers: { ...req.headers, host: req.headers.host }, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', (err: NodeJS.ErrnoException) => {
      // A refused connection reached no backend: another may take it. Anything later is the client's failure.
      if (err.code === 'ECONNREFUSED' && !res.headersSent) {
        retriedDials++;
        return forward(req, res, body, tried);
      }
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`upstream ${b.port}: ${err.message}`);
      else res.destroy(err);
    });
    up.end(body);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(req, res, Buffer.concat(chunks), new Set()));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    backends,
    retriedDials: () => retriedDials,
    close: () =>
      new Promise<void>((done) => {
        clearInterval(timer);
        agent.destroy();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
