// Why `npm start` could not start, as the one line it prints: the cause and the fix, never a stack.
import { ConfigError } from '../config/env.js';
import { DatabaseMissingError, EmbeddedPostgresError } from '../dev/db/embedded.js';

export interface StartStage {
  /** What was being started when it failed. */
  stage: 'config' | 'postgres' | 'temporal-cli' | 'temporal' | 'migrations' | 'api' | 'metrics' | 'other';
  /** The PostgreSQL URL in use (password hidden in what is printed), when known. */
  databaseUrl?: string;
  port?: number;
  host?: string;
}

/** A failure whose message already names the cause and the fix. */
export class StartError extends Error {}

const codeOf = (err: unknown): string => {
  for (let e: any = err, depth = 0; e && depth < 5; e = e.cause, depth++) if (typeof e.code === 'string') return e.code;
  return '';
};
const firstLine = (err: unknown) =>
  String((err as Error)?.message ?? err)
    .split('\n')[0]!
    .trim();

/** Where a PostgreSQL URL points, as `user@host:port/db`, without its password. */
function where(url: string | undefined): string {
  if (!url) return 'PostgreSQL';
  try {
    const u = new URL(url);
    return `PostgreSQL at ${u.host}${u.pathname} (user ${decodeURIComponent(u.username) || 'default'})`;
  } catch {
    return 'PostgreSQL (DATABASE_URL is not a valid URL)';
  }
}

/** The one line `npm start` prints for a failure at `at`. */
export function describeStartFailure(err: unknown, at: StartStage): string {
  // Configuration names every bad variable on a line of its own: one line here, each after the other.
  if (err instanceof ConfigError) {
    const [head, ...rest] = err.message
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    return `${head}${rest.length ? ` ${rest.join('; ')}` : ''} (see the README's Configuration)`;
  }
  if (err instanceof StartError || err instanceof DatabaseMissingError) return firstLine(err);
  if (err instanceof EmbeddedPostgresError) return `${firstLine(err)} (or set DATABASE_URL to a PostgreSQL server of your own)`;
  const code = codeOf(err);
  if (at.stage === 'api' && code === 'EADDRINUSE')
    return `port ${at.port} on ${at.host} is already in use: stop what listens there, or set PORT to a free port`;
  if (at.stage === 'api' && code === 'EACCES') return `port ${at.port} on ${at.host} needs more privileges: set PORT to 1024 or above`;
  if (at.stage === 'metrics' && code === 'EADDRINUSE')
    return `port ${at.port} on ${at.host ?? '127.0.0.1'} is already in use: stop what listens there, or set METRICS_PORT to a free port`;
  if (at.stage === 'postgres' || at.stage === 'migrations') {
    const db = where(at.databaseUrl);
    if (code === 'ECONNREFUSED')
      return `${db} refused the connection: start PostgreSQL there, or fix DATABASE_URL (unset it to use the embedded one)`;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `${db}: the host name does not resolve; fix DATABASE_URL`;
    if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH')
      return `${db} did not answer: check that the host is reachable, or fix DATABASE_URL`;
    if (code === '28P01') return `${db} rejected the password: put the right one in DATABASE_URL (postgres://user:password@host:port/db)`;
    if (code === '28000') return `${db} refused this user or client (${firstLine(err)}): fix DATABASE_URL or the server's pg_hba.conf`;
    if (code === '3D000') return `${db}: ${firstLine(err)}; create it, or name an existing database in DATABASE_URL`;
    if (/SASL|password must be a string|client password/i.test(firstLine(err)))
      return `${db} asks for a password: put it in DATABASE_URL (postgres://user:password@host:port/db)`;
    return `${db}: ${firstLine(err)}${at.stage === 'migrations' ? ' (while applying migrations)' : ''}`;
  }
  // A failed build quotes the end of Go's output (several lines): that is the cause to see.
  if (at.stage === 'temporal-cli') return err instanceof Error ? err.message : firstLine(err);
  if (at.stage === 'temporal')
    return `the Temporal dev server did not start: ${firstLine(err)} (see .data/temporal.log, or set TEMPORAL_ADDRESS)`;
  return `could not start: ${firstLine(err)} (START_DEBUG=1 npm start prints the stack)`;
}
