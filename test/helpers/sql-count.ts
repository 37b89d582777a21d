// Counting the SQL statements a piece of work sends, from MikroORM's own query log.
import type { MikroORM } from '@mikro-orm/postgresql';

type QueryLogger = { logQuery(context: { query: string; namespace?: string }): void };

/**
 * Every statement the ORM sent while `work` ran, in order (begin, commit and raw `execute` calls included).
 * Reads the log without printing it; only this ORM's statements count, so a test app of its own is exact.
 */
export async function recordStatements<T>(orm: MikroORM, work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const logger = orm.config.getLogger() as unknown as QueryLogger;
  const original = logger.logQuery;
  const ownMethod = Object.hasOwn(logger, 'logQuery');
  const statements: string[] = [];
  logger.logQuery = function (context) {
    // A slow statement is logged a second time under this namespace (when no slow-query logger of its own is set).
    if (context.namespace !== 'slow-query') statements.push(context.query);
    original.call(this, context);
  };
  try {
    return { result: await work(), statements };
  } finally {
    if (ownMethod) logger.logQuery = original;
    else delete (logger as Partial<QueryLogger>).logQuery;
  }
}

/** "begin, with, insert ×3, commit": the first word of each statement, repeats folded, for failure messages and tables. */
export function statementKinds(statements: string[]): string {
  const words = statements.map((s) => s.trim().split(/\s+/, 1)[0]!.toLowerCase());
  const folded: string[] = [];
  for (let i = 0; i < words.length;) {
    let n = 1;
    while (words[i + n] === words[i]) n++;
    folded.push(n > 1 ? `${words[i]} ×${n}` : words[i]!);
    i += n;
  }
  return folded.join(', ');
}
