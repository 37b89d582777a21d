// Where a running embedded PostgreSQL leaves its URL for other processes (the operator CLI).
// Kept apart from embedded.ts so that the operator CLI reads it without loading what starts a server.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';

// Beside the data folder, named after it (.data/pg → .data/pg-url), so the tests' server under .data/test-pg never overwrites it.
const urlFileOf = (databaseDir: string) => resolve(dirname(databaseDir), `${basename(databaseDir)}-url`);

/** Records the URL of the server running on `databaseDir`; the returned function removes it, unless another server wrote its own since. */
export function noteEmbeddedUrl(databaseDir: string, url: string): () => void {
  const file = urlFileOf(databaseDir);
  writeFileSync(file, `${url}\n`);
  return () => {
    if (readUrlFile(file) === url) rmSync(file, { force: true });
  };
}

/** The URL of the embedded PostgreSQL that `npm start` runs under `<dataDir>/pg`; null when none runs (a killed one may leave a stale URL). */
export function readEmbeddedUrl(dataDir: string): string | null {
  return readUrlFile(urlFileOf(resolve(dataDir, 'pg')));
}

function readUrlFile(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim() || null;
  } catch {
    return null;
  }
}
