// Baseline: a bare Fastify route answering a fixed JSON document (no auth, no database, no logging).
// Never imports the service's code.
import Fastify from 'fastify';

const body: unknown = JSON.parse(process.env.BODY_JSON ?? '{"ok":true}');
const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ ok: true }));
app.get('/api/v1/me', async () => body);
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void app.close().then(() => process.exit(0)));
