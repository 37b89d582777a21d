// The compose files, checked without Docker (these machines have none): each is valid against the Compose
// Specification's JSON schema, and the production one has the shape docs/deployment.md describes.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ENV_NAMES } from '../../config/env.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
// The Compose Specification's schema (compose-spec/compose-spec, schema/compose-spec.json), as the dclint
// package ships it; its package exports do not list it, so it is read from beside its package.json.
const schemaPath = join(dirname(createRequire(import.meta.url).resolve('dclint/package.json')), 'schemas', 'compose.schema.json');

/** CONTRACT.md's Environment table: the only variables a deployment may give the service's processes. */
const CONTRACT_VARIABLES = [
  'PORT', 'HOST', 'PUBLIC_URL', 'DATABASE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_TASK_QUEUE',
  'CONNECT_CODE_TTL_SECONDS', 'CHECKOUT_TTL_SECONDS', 'TRACKING_MAX_WRONG_CONTACT', 'TRACKING_LOCKOUT_SECONDS',
  'WEBHOOK_TIMEOUT_MS', 'SECRETS_KEY', 'LOG_LEVEL', 'DATA_DIR', 'TRUST_PROXY', 'METRICS_HOST', 'METRICS_PORT', 'ALLOW_LOOPBACK_TARGETS',
]; // prettier-ignore

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  deploy?: { replicas?: number };
  volumes?: string[];
  healthcheck?: { test: string[] };
}
interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

// Compose reads YAML 1.1 merge keys (`<<: *anchor`); aliases expand as the file's own text says.
const load = (path: string) => parse(read(path), { merge: true, maxAliasCount: -1 }) as ComposeFile;
// Draft-07, which Ajv's default class implements; its `$schema` spells the draft's URL in a form Ajv does
// not look up (https, no `#`), so it is left out. Not strict: the schema uses annotations such as `deprecated`.
const { $schema: _draft, ...composeSchema } = JSON.parse(readFileSync(schemaPath, 'utf8')) as Record<string, unknown>;
const validate = new Ajv({ allErrors: true, strict: false }).compile(composeSchema);
/** The services that run this repository's image (the API, the worker, or `npm start`). */
const ours = (file: ComposeFile) =>
  Object.entries(file.services).filter(([, s]) => s.build !== undefined || s.image?.startsWith('store-commerce'));

describe('the Compose Specification schema', () => {
  it('refuses what Compose refuses: an unknown service key, a bad depends_on condition', () => {
    expect(validate({ services: { api: { image: 'x', replicas: 2 } } })).toBe(false);
    expect(validate({ services: { api: { image: 'x', depends_on: { db: { condition: 'service_ready' } } } } })).toBe(false);
    expect(validate({ services: { api: { image: 'x', deploy: { replicas: 2 } } } })).toBe(true);
  });
});

describe.each(['docker-compose.yml', 'docker-compose.prod.yml'])('%s', (path) => {
  const file = load(path);

  it('is valid against the Compose Specification schema', () => {
    expect(validate(file), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('gives the service’s processes only CONTRACT.md’s variables, each one the service reads', () => {
    const services = ours(file);
    expect(services.length).toBeGreaterThan(0);
    for (const [name, service] of services)
      for (const key of Object.keys(service.environment ?? {})) {
        expect(CONTRACT_VARIABLES, `${name}: ${key}`).toContain(key);
        expect(ENV_NAMES, `${name}: ${key}`).toContain(key);
      }
  });

  it('publishes the Temporal UI (it has no sign-in) on 127.0.0.1 only', () => {
    const ui = Object.entries(file.services).flatMap(([name, s]) =>
      (s.ports ?? []).filter((p) => /:(8080|8233)$/.test(p)).map((p) => ({ name, p })),
    );
    expect(ui).toHaveLength(1);
    expect(ui[0]!.p).toMatch(/^127\.0\.0\.1:/);
  });
});

describe('docker-compose.yml: the development stack keeps its keys', () => {
  const s = load('docker-compose.yml').services;

  it('keeps the app’s data folder (its generated SECRETS_KEY) in a volume, so a recreated container opens old secrets', () => {
    expect(s.app!.environment).not.toHaveProperty('DATA_DIR');
    expect(s.app!.volumes).toContain('appdata:/app/.data');
  });

  it('has healthchecks for Temporal and the app, and starts the app once Temporal is healthy', () => {
    expect(s.temporal!.healthcheck!.test.join(' ')).toContain('operator cluster health');
    expect(s.app!.healthcheck!.test.join(' ')).toContain('/healthz');
    expect(s.app!.depends_on).toMatchObject({ temporal: { condition: 'service_healthy' }, postgres: { condition: 'service_healthy' } });
  });
});

describe('the image', () => {
  const dockerfile = read('Dockerfile');
  const ignored = read('.dockerignore').split('\n');
  const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

  it('is multi-stage: the last stage has the compiled service and production dependencies only, as a user that is not root', () => {
    expect(dockerfile).toMatch(/npm prune --omit=dev/);
    expect(finalStage).toMatch(/^\nFROM node:24[^\n]*\n/);
    expect(finalStage).not.toMatch(/COPY \. \.|npm (ci|install)/);
    expect(finalStage).toMatch(/^USER node$/m);
    // The workspaces' manifests are in place before the install.
    expect(dockerfile.indexOf('COPY sdk/package.json sdk/')).toBeLessThan(dockerfile.indexOf('RUN npm ci'));
  });

  it('never takes a .env, the local data or .git into the build context', () => {
    for (const entry of ['.env', '.env.*', '.data', '.git', 'node_modules']) expect(ignored).toContain(entry);
  });
});

describe('docker-compose.prod.yml: the production topology', () => {
  const file = load('docker-compose.prod.yml');
  const s = file.services;
  // The containers run exactly package.json's start:api and start:worker (their node flags included).
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  const apis = Object.keys(s).filter((name) => s[name]!.command?.join(' ') === scripts['start:api']);
  const workers = Object.values(s).filter((x) => x.command?.join(' ') === scripts['start:worker']);

  it('runs two API replicas and two workers from the built image, with what start:api and start:worker require', () => {
    expect(apis).toHaveLength(2);
    expect(workers.reduce((n, w) => n + (w.deploy?.replicas ?? 1), 0)).toBe(2);
    for (const service of [...apis.map((name) => s[name]!), ...workers]) {
      for (const key of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'SECRETS_KEY', 'PUBLIC_URL']) expect(service.environment).toHaveProperty(key);
      expect(service.environment!.TEMPORAL_ADDRESS).toBe('temporal:7233');
      // A secret never has a default in the file: compose refuses to start without it.
      expect(service.environment!.SECRETS_KEY).toMatch(/^\$\{SECRETS_KEY:\?/);
      expect(service.ports ?? []).toEqual([]);
    }
    for (const name of apis) expect(s[name]!.environment).toMatchObject({ HOST: '0.0.0.0', TRUST_PROXY: '1' });
  });

  it('connects the service as its own role, never as the PostgreSQL superuser', () => {
    const superuser = s.postgres!.environment!.POSTGRES_USER!;
    for (const service of [...apis.map((name) => s[name]!), ...workers]) {
      const user = /^postgres:\/\/([^:]+):/.exec(service.environment!.DATABASE_URL!)![1];
      expect(user).not.toBe(superuser);
      expect(service.environment!.DATABASE_URL).not.toContain('POSTGRES_PASSWORD');
    }
    expect(s.postgres!.volumes).toContain('./deploy/postgres/init-app-role.sh:/docker-entrypoint-initdb.d/10-app-role.sh:ro');
    expect(read('deploy/postgres/init-app-role.sh')).toMatch(/CREATE ROLE store_commerce LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE/);
  });

  it('sets Temporal’s history shard count before the first boot, and turns its server metrics on', () => {
    expect(Number(s.temporal!.environment!.NUM_HISTORY_SHARDS)).toBeGreaterThanOrEqual(512);
    expect(read('docker-compose.prod.yml')).toMatch(/PERMANENT: the history shard count/);
    expect(s.temporal!.environment!.PROMETHEUS_ENDPOINT).toBe('0.0.0.0:8000');
  });

  it('lets a Prometheus in the compose scrape every process, on the compose network only', () => {
    for (const service of [...apis.map((name) => s[name]!), ...workers])
      expect(service.environment).toMatchObject({ METRICS_HOST: '0.0.0.0', METRICS_PORT: '9464' });
    expect(s.prometheus!.ports).toEqual(['127.0.0.1:9090:9090']);
    const config = parse(read('deploy/prometheus/prometheus.yml')) as {
      scrape_configs: { static_configs?: { targets: string[] }[]; dns_sd_configs?: { names: string[]; port: number }[] }[];
    };
    const targets = config.scrape_configs.flatMap((c) => [
      ...(c.static_configs ?? []).flatMap((x) => x.targets),
      ...(c.dns_sd_configs ?? []).flatMap((x) => x.names.map((n) => `${n}:${x.port}`)),
    ]);
    expect(targets.sort()).toEqual([...apis.map((name) => `${name}:9464`), 'temporal:8000', 'worker:9464'].sort());
  });

  it('serves https for DOMAIN through Caddy', () => {
    expect(read('deploy/caddy/Caddyfile')).toMatch(/^\{\$DOMAIN\} \{$/m);
    expect(s.proxy!.ports).toEqual(expect.arrayContaining(['80:80', '443:443']));
    expect(s.proxy!.environment!.DOMAIN).toMatch(/^\$\{DOMAIN:\?/);
  });

  it('puts the APIs behind a reverse proxy that routes on /readyz, the only port open beyond this machine', () => {
    const published = Object.entries(s).flatMap(([name, x]) => (x.ports ?? []).map((p) => ({ name, p })));
    const open = published.filter(({ p }) => !p.startsWith('127.0.0.1:'));
    expect([...new Set(open.map((o) => o.name))]).toEqual(['proxy']);
    const caddyfile = read('deploy/caddy/Caddyfile');
    expect(s.proxy!.volumes).toContain('./deploy/caddy/Caddyfile:/etc/caddy/Caddyfile:ro');
    const upstreams = /reverse_proxy\s+([^{]+)\{/.exec(caddyfile)![1]!.trim().split(/\s+/);
    expect(upstreams.sort()).toEqual(apis.map((name) => `${name}:3000`).sort());
    expect(caddyfile).toMatch(/health_uri \/readyz/);
  });

  it('runs Temporal on PostgreSQL, its schema set up by a job that must finish first, PostgreSQL on a volume', () => {
    expect(s.temporal!.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgres' });
    expect(s.temporal!.depends_on).toMatchObject({ 'temporal-schema': { condition: 'service_completed_successfully' } });
    expect(s['temporal-schema']!.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' } });
    expect(s['temporal-schema']!.volumes).toContain('./deploy/temporal:/deploy:ro');
    expect(read('deploy/temporal/setup-schema.sh')).toMatch(/update-schema -d "\$schema\/\$kind\/versioned"/);
    for (const name of apis) expect(s[name]!.depends_on).toHaveProperty('temporal-namespace.condition', 'service_completed_successfully');
    expect(s.postgres!.volumes).toContain('pgdata:/var/lib/postgresql/data');
    expect(file.volumes).toHaveProperty('pgdata');
    expect(s.temporal!.ports ?? []).toEqual([]);
  });
});
