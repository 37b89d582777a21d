// Calibration baseline: node:http answering the same fixed JSON document as bare-fastify.ts.
import { createServer } from 'node:http';

const body: unknown = JSON.parse(process.env.BODY_JSON ?? '{"ok":true}');
const server = createServer((request, response) => {
  const path = request.url?.split('?')[0];
  if (request.method !== 'GET' || (path !== '/api/v1/me' && path !== '/healthz')) {
    response.writeHead(404).end();
    return;
  }
  // Serialized per request, as Fastify does for a returned object.
  const text = JSON.stringify(path === '/healthz' ? { ok: true } : body);
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
});
server.keepAliveTimeout = 72_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => (server.close(() => process.exit(0)), server.closeAllConnections()));
