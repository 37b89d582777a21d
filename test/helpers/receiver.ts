import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A real HTTP receiver on loopback that records every request; `respond` decides each answer. */
export async function startReceiver(
  respond: (req: Received, res: ServerResponse) => void | Promise<void> = (_r, res) => void res.end('ok'),
) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const entry = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(entry);
      await respond(entry, res);
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const port = (server.address() as { port: number }).port;
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
  };
}

/** Polls until check() holds or the deadline passes. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 20_000, what = 'condition') {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} not met within ${timeoutMs} ms`);
}
