import { createServer } from 'node:http';

export interface SinkReceiver {
  url: string;
  /** Requests received so far, and their body bytes. */
  received(): { count: number; bytes: number; largest: number };
  stop(): Promise<void>;
}

/** A loopback webhook endpoint in the harness that answers 200 and keeps nothing but counts (big bodies must not weigh on the harness). */
export async function startSinkReceiver(): Promise<SinkReceiver> {
  let count = 0;
  let bytes = 0;
  let largest = 0;
  const server = createServer((req, res) => {
    let size = 0;
    req.on('data', (chunk: Buffer) => (size += chunk.length));
    req.on('end', () => {
      count++;
      bytes += size;
      largest = Math.max(largest, size);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    received: () => ({ count, bytes, largest }),
    stop: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
