// Recording the text of every statement this process sends to PostgreSQL, as the wire carries it.
import { createRequire } from 'node:module';

type Query = (this: unknown, ...args: unknown[]) => unknown;
interface ClientClass {
  prototype: { query: Query };
}

const require = createRequire(import.meta.url);
/** The pg Client classes in use here: our own pg, and the copy MikroORM's PostgreSQL driver may bring along. */
function clientClasses(): ClientClass[] {
  // Resolved from inside MikroORM's package, as its driver resolves it (a nested copy when versions differ).
  const ormRequire = createRequire(new URL('../../node_modules/@mikro-orm/postgresql/index.js', import.meta.url));
  const found = new Set<ClientClass>([require('pg').Client, ormRequire('pg').Client]);
  return [...found];
}

/**
 * Until stop(), every SQL text a pg client of this process sends (the ORM's, executeBound's, prepared
 * statements', cursors') is pushed to `texts`, in order; the statements still run as they would. Values
 * sent apart from the text (bound parameters) are not recorded: a value found in `texts` was written into
 * the SQL itself. The worker process of the test run is not seen.
 */
export function recordSqlText(): { texts: string[]; stop(): void; unrecorded<T>(work: () => Promise<T>): Promise<T> } {
  const texts: string[] = [];
  let paused = false;
  const restores = clientClasses().map((Client) => {
    const original = Client.prototype.query;
    Client.prototype.query = function (...args: unknown[]) {
      const first = args[0] as string | { text?: unknown } | undefined;
      const text = typeof first === 'string' ? first : first?.text;
      if (typeof text === 'string' && !paused) texts.push(text);
      return original.apply(this, args);
    };
    return () => {
      Client.prototype.query = original;
    };
  });
  return {
    texts,
    stop: () => restores.forEach((restore) => restore()),
    /** Runs set-up work without recording it (nothing else may run meanwhile). */
    async unrecorded(work) {
      paused = true;
      try {
        return await work();
      } finally {
        paused = false;
      }
    },
  };
}
