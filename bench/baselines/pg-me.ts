// Baseline: minimal Fastify + pg doing the same SQL as the service's GET /me, with no ORM, no error catalogue,
// no rate-limit decision and no response schema. Never imports the service's code.
// Per request: SHA-256 of the bearer key, then the service's one authentication statement (prepared, as ours) (find the live key
// and its store, bump the key's counter for the minute, note last_used_at), then the same JSON as ours.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import pg from 'pg';

/** Our PUBLIC_URL: the store's page links are built from it, as the service does. */
const publicUrl = process.env.PUBLIC_URL ?? 'http://127.0.0.1';
/** The per-minute limit of the bench store's plan for a secret key (the service reads it from its plan table). */
const requestsPerMinute = Number(process.env.REQUESTS_PER_MINUTE ?? 300);
// Same size as the service's pool (db/orm.ts).
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

// The service's authentication statement (a copy: bench/baselines/key-and-count.sql), run as a named
// prepared statement as the service runs it (db/prepared.ts): parsed and planned once per connection.
const KEY_AND_COUNT = {
  name: 'bl_key_and_count',
  text: readFileSync(new URL('./key-and-count.sql', import.meta.url), 'utf8'),
};

const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ ok: true }));

app.get('/api/v1/me', async (request, reply) => {
  const key = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  if (!key) return reply.status(401).send({ error: 'unauthorized' });
  const hash = createHash('sha256').update(key).digest('hex');
  const { rows } = await pool.query({ ...KEY_AND_COUNT, values: [hash, request.ip] });
  const row = rows[0];
  if (!row) return reply.status(401).send({ error: 'unauthorized' });
  const storePage = `${publicUrl}/s/${encodeURIComponent(row.slug)}`;
  return {
    api_version: 'v1',
    store: {
      id: row.store_id,
      name: row.name,
      slug: row.slug,
      url: storePage,
      tracking_url: `${storePage}/track`,
      currency: row.currency,
      mode: row.mode,
    },
    key: { kind: row.kind === 'publishable' ? 'publishable' : 'secret', scopes: row.scopes, connection_id: row.connection_id },
    limits: { requests_per_minute: requestsPerMinute },
  };
});

await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(
    signal,
    () =>
      void app
        .close()
        .then(() => pool.end())
        .then(() => process.exit(0)),
  );
}
