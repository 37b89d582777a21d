import { isIP } from 'node:net';
import { z } from 'zod';
import type { TargetPolicy } from '../domain/address-check.js';

const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const seconds = z.coerce.number().int().positive();
/** Whole days of history to keep: 0 (never delete) or 1 to 3650 (ten years). */
const retentionDays = z.coerce.number().int().min(0).max(3650);

/** What TRUST_PROXY may name besides addresses: proxy-addr's ranges, as Fastify's trustProxy accepts them. */
const PROXY_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const isProxyAddress = (entry: string) => {
  if (PROXY_RANGES.has(entry)) return true;
  const [address, prefix, extra] = entry.split('/');
  const family = isIP(address!);
  if (!family || extra !== undefined) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
};

/**
 * TRUST_PROXY: `false` (or 0), a number of reverse-proxy hops, or comma-separated proxy addresses/CIDRs.
 * `true` is refused: trusting every X-Forwarded-For hop lets any client pick the address its limits count.
 */
const trustProxy = z
  .string()
  .trim()
  .transform((text, ctx): false | number | string[] => {
    if (text === 'false' || /^\d+$/.test(text)) return text === 'false' || Number(text) === 0 ? false : Number(text);
    if (text === 'true') {
      ctx.addIssue({
        code: 'custom',
        message:
          'true would trust every X-Forwarded-For hop, so any client could pick its own address; write how many reverse proxies stand in front of the service (TRUST_PROXY=1 behind one) or their addresses as comma-separated CIDRs (TRUST_PROXY=10.0.0.0/8)',
      });
      return z.NEVER;
    }
    const entries = text
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    const bad = entries.filter((e) => !isProxyAddress(e));
    if (!entries.length || bad.length) {
      ctx.addIssue({
        code: 'custom',
        message: `must be false, a number of proxy hops, or comma-separated proxy addresses or CIDRs (not: ${bad.join(', ') || text})`,
      });
      return z.NEVER;
    }
    return entries;
  });

/** The environment of CONTRACT.md, parsed once at boot; nothing else reads process.env. */
const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('store-commerce'),
  CONNECT_CODE_TTL_SECONDS: seconds.default(600),
  CHECKOUT_TTL_SECONDS: seconds.default(86_400),
  TRACKING_MAX_WRONG_CONTACT: z.coerce.number().int().positive().default(5),
  TRACKING_LOCKOUT_SECONDS: seconds.default(900),
  // At most a minute: the delivery activity's own limit must stay above it.
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().max(60_000).default(8000),
  /** Webhook dispatchers (workflow webhook-dispatch/<shard>-of-<n>); the API and the worker must agree. */
  WEBHOOK_SHARDS: z.coerce.number().int().min(1).max(256).default(8),
  /** A dispatcher with nothing to send for this long ends its activity; the next order signals it. */
  WEBHOOK_DISPATCH_IDLE_MS: z.coerce.number().int().min(100).max(600_000).default(20_000),
  /** Consecutive failed attempts (no answer, 5xx, 429) that open an endpoint's circuit (docs/webhooks.md). */
  WEBHOOK_CIRCUIT_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
  /** An open circuit's pause after each failure before its next single attempt. */
  WEBHOOK_CIRCUIT_COOLDOWN_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  /** A delivery waiting longer than this behind an open circuit is settled unsent (failed, replayable). */
  WEBHOOK_CIRCUIT_MAX_WAIT_MS: z.coerce.number().int().min(0).max(86_400_000).default(600_000),
  ALLOW_LOOPBACK_TARGETS: flag.default(false),
  /** Ports besides 443 that public webhook, push and chat targets may use, comma-separated (none by default). */
  OUTBOUND_EXTRA_PORTS: z
    .string()
    .default('')
    .transform((text, ctx) => {
      const ports = text
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      const bad = ports.filter((p) => !/^\d{1,5}$/.test(p) || Number(p) < 1 || Number(p) > 65535);
      if (bad.length) {
        ctx.addIssue({ code: 'custom', message: `must be comma-separated port numbers (not: ${bad.join(', ')})` });
        return z.NEVER;
      }
      return ports.map(Number);
    }),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().min(1).default('.data'),
  TRUST_PROXY: trustProxy.default(false),
  /** The address the metrics page binds: loopback unless a container network must reach it (Prometheus in the compose). */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** Where this process serves Prometheus text (on METRICS_HOST); unset, no metrics are kept at all. */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** 32 bytes (64 hex characters or base64) that encrypt stored webhook and connection secrets. */
  SECRETS_KEY: z
    .string()
    .refine((v) => decodeKey(v) !== null, 'must be 32 bytes as 64 hex characters or base64')
    .optional(),
  /** The key being rotated out: secrets it sealed still open until `secrets reseal` has moved them to SECRETS_KEY. */
  SECRETS_KEY_PREVIOUS: z
    .string()
    .refine((v) => decodeKey(v) !== null, 'must be 32 bytes as 64 hex characters or base64')
    .optional(),
  /** Days a webhook delivery attempt stays in the delivery log (dashboard, `webhooks deliveries`, replay); 0 keeps them forever. */
  WEBHOOK_DELIVERY_RETENTION_DAYS: retentionDays.default(30),
  /** Days an order event (the order snapshot its webhooks carry) is kept once sent and no kept attempt refers to it; 0: forever. */
  ORDER_EVENT_RETENTION_DAYS: retentionDays.default(90),
});

/** The 32-byte key from its hex or base64 form, or null. */
export function decodeKey(text: string): Buffer | null {
  const bytes = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  return bytes.length === 32 ? bytes : null;
}

export type Env = z.infer<typeof EnvSchema>;

/** The names of every variable loadConfig reads (deployment files are checked against them). */
export const ENV_NAMES: readonly string[] = Object.keys(EnvSchema.shape);

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  /** `{base_url}` of the spec: PUBLIC_URL + /api/v1. */
  baseUrl: string;
  databaseUrl: string | undefined;
  temporalAddress: string | undefined;
  temporalNamespace: string;
  taskQueue: string;
  connectCodeTtlSeconds: number;
  checkoutTtlSeconds: number;
  trackingMaxWrongContact: number;
  trackingLockoutSeconds: number;
  webhookTimeoutMs: number;
  /** The webhook dispatch tuning (WEBHOOK_SHARDS, WEBHOOK_DISPATCH_IDLE_MS, WEBHOOK_CIRCUIT_*). */
  webhookDispatch: { shards: number; idleMs: number; circuitFailures: number; circuitCoolDownMs: number; circuitMaxWaitMs: number };
  allowLoopbackTargets: boolean;
  /** OUTBOUND_EXTRA_PORTS: ports besides 443 that public outbound targets may use. */
  outboundExtraPorts: number[];
  logLevel: Env['LOG_LEVEL'];
  dataDir: string;
  /** Fastify's trustProxy: false, how many proxy hops to trust, or which proxy addresses; never `true` (every hop). */
  trustProxy: false | number | string[];
  /** Encrypts secrets at rest; required wherever secrets are stored or used (npm start makes one). */
  secretsKey: Buffer | undefined;
  /** The key being rotated out (SECRETS_KEY_PREVIOUS): it still opens secrets, never seals one. */
  secretsKeyPrevious: Buffer | undefined;
  /** The address of this process's /metrics page (127.0.0.1 unless METRICS_HOST says otherwise). */
  metricsHost: string;
  /** The port of this process's /metrics page; undefined: no metrics. */
  metricsPort: number | undefined;
  /** How many days the housekeeping `retention` job keeps delivery attempts and order events (0: forever; docs/operations.md). */
  retention: { deliveryDays: number; orderEventDays: number };
}

/** Config with both backing services resolved (what the API and the worker run with). */
export type ResolvedConfig = Config & { databaseUrl: string; temporalAddress: string; secretsKey: Buffer };

export class ConfigError extends Error {}

/** Parses the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  // A delivery can be replayed only while its event is kept: events outliving the log is the useful order.
  if (e.ORDER_EVENT_RETENTION_DAYS > 0 && e.ORDER_EVENT_RETENTION_DAYS < e.WEBHOOK_DELIVERY_RETENTION_DAYS)
    throw new ConfigError(
      `Invalid configuration:\n  ORDER_EVENT_RETENTION_DAYS: must be 0 (keep forever) or at least WEBHOOK_DELIVERY_RETENTION_DAYS (${e.WEBHOOK_DELIVERY_RETENTION_DAYS}): a delivery can only be replayed while its event is kept`,
    );
  const publicUrl = (e.PUBLIC_URL ?? `http://${e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST}:${e.PORT}`).replace(/\/+$/, '');
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    baseUrl: `${publicUrl}/api/v1`,
    databaseUrl: e.DATABASE_URL,
    temporalAddress: e.TEMPORAL_ADDRESS,
    temporalNamespace: e.TEMPORAL_NAMESPACE,
    taskQueue: e.TEMPORAL_TASK_QUEUE,
    connectCodeTtlSeconds: e.CONNECT_CODE_TTL_SECONDS,
    checkoutTtlSeconds: e.CHECKOUT_TTL_SECONDS,
    trackingMaxWrongContact: e.TRACKING_MAX_WRONG_CONTACT,
    trackingLockoutSeconds: e.TRACKING_LOCKOUT_SECONDS,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    webhookDispatch: {
      shards: e.WEBHOOK_SHARDS,
      idleMs: e.WEBHOOK_DISPATCH_IDLE_MS,
      circuitFailures: e.WEBHOOK_CIRCUIT_FAILURES,
      circuitCoolDownMs: e.WEBHOOK_CIRCUIT_COOLDOWN_MS,
      circuitMaxWaitMs: e.WEBHOOK_CIRCUIT_MAX_WAIT_MS,
    },
    allowLoopbackTargets: e.ALLOW_LOOPBACK_TARGETS,
    outboundExtraPorts: e.OUTBOUND_EXTRA_PORTS,
    logLevel: e.LOG_LEVEL,
    dataDir: e.DATA_DIR,
    trustProxy: e.TRUST_PROXY,
    secretsKey: e.SECRETS_KEY ? decodeKey(e.SECRETS_KEY)! : undefined,
    secretsKeyPrevious: e.SECRETS_KEY_PREVIOUS ? decodeKey(e.SECRETS_KEY_PREVIOUS)! : undefined,
    metricsHost: e.METRICS_HOST,
    metricsPort: e.METRICS_PORT,
    retention: { deliveryDays: e.WEBHOOK_DELIVERY_RETENTION_DAYS, orderEventDays: e.ORDER_EVENT_RETENTION_DAYS },
  };
}

/** Where the service may send webhooks, pushes and chat messages (the outbound-address rules' settings). */
export function targetPolicy(config: Pick<Config, 'allowLoopbackTargets' | 'outboundExtraPorts'>): TargetPolicy {
  return { allowLoopback: config.allowLoopbackTargets, extraPorts: config.outboundExtraPorts };
}

/** The keys that open stored secrets, current first (openSecret); only the current one seals. */
export function openingKeys(config: Pick<Config, 'secretsKey' | 'secretsKeyPrevious'>): Buffer[] {
  return [config.secretsKey, config.secretsKeyPrevious].filter((k): k is Buffer => k !== undefined);
}

/** Narrows a config to one whose PostgreSQL and Temporal addresses are known. */
export function requireResolved(config: Config): ResolvedConfig {
  const missing = [
    config.databaseUrl ? null : 'DATABASE_URL',
    config.temporalAddress ? null : 'TEMPORAL_ADDRESS',
    config.secretsKey ? null : 'SECRETS_KEY',
  ].filter(Boolean);
  if (missing.length) {
    throw new ConfigError(`${missing.join(' and ')} must be set here (npm start starts local ones for you).`);
  }
  return config as ResolvedConfig;
}
