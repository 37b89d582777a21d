// `npm start` as a real child process: a database named in DATABASE_URL that does not exist yet is
// created, and every failure to start ends in one line naming the cause and the fix, never a stack.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { describeStartFailure } from '../../scripts/start-failure.js';
import { ensureTemporalCli } from '../../dev/temporal/dev-server.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'sc-start-'));
const suffix = randomBytes(4).toString('hex');
/** The run's PostgreSQL server, at another database (or as another user). */
const serverUrl = (database: string, user?: string) => {
  const u = new URL(inject('databaseUrl'));
  u.pathname = `/${database}`;
  if (user) {
    u.username = user;
    u.password = ROLE_PASSWORD;
  }
  return u.toString();
};
// The embedded server (no DATABASE_URL) asks for passwords; the CI server trusts loopback.
const ROLE_PASSWORD = 'not-a-secret';
const admin = async (sql: string) => {
  const c = new pg.Client({ connectionString: serverUrl('postgres') });
  await c.connect();
  try {
    return await c.query(sql);
  } finally {
    await c.end();
  }
};
const created = `sc_start_${suffix}`;
const role = `sc_nocreate_${suffix}`;
afterAll(async () => {
  await admin(`drop database if exists ${created} with (force)`);
  await admin(`drop role if exists ${role}`);
  rmSync(dataDir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs scripts/start.ts as `npm start` does, with Temporal given (no dev server) and its own task queue. */
function start(env: Record<string, string>): Promise<Run> {
  const full = {
    ...process.env,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_NAMESPACE: 'start-test',
    TEMPORAL_TASK_QUEUE: `start-test-${suffix}`,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    PORT: '0',
    ...env,
  };
  delete (full as Record<string, string | undefined>).START_DEBUG;
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/start.ts'],
      // A start that has not ended by then hangs, which is a failure of its own: killed outright, it
      // reports no exit code (and leaves no process behind).
      { cwd: repoRoot, env: full, timeout: 75_000, killSignal: 'SIGKILL' },
      (err, stdout, stderr) => {
        done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

/** The failure is the last line, alone on stderr: no stack trace, no second message. */
function failureLine(run: Run): string {
  expect(run.code, `exit code (-1: it hung and was killed)\n${run.stdout}${run.stderr}`).toBe(1);
  const lines = run.stderr.trim().split('\n');
  expect(lines, run.stderr).toHaveLength(1);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  return lines[0]!;
}

const holdPort = () =>
  new Promise<Server>((done) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => done(server));
  });

describe('npm start with DATABASE_URL', () => {
  it('creates a database that does not exist yet, and a port already taken ends in one line naming it and PORT', async () => {
    const taken = await holdPort();
    const port = (taken.address() as { port: number }).port;
    try {
      const run = await start({ DATABASE_URL: serverUrl(created), PORT: String(port) });
      expect(failureLine(run)).toBe(
        `[start] port ${port} on 127.0.0.1 is already in use: stop what listens there, or set PORT to a free port`,
      );
      // It got as far as the listener: the database was created and migrated.
      expect((await admin(`select 1 from pg_database where datname = '${created}'`)).rowCount).toBe(1);
      expect(run.stdout).toContain('applying migrations');
    } finally {
      taken.close();
    }
  });

  it('a missing database its role may not create: one line saying so and how to create it', async () => {
    await admin(`create role ${role} login password '${ROLE_PASSWORD}'`);
    const run = await start({ DATABASE_URL: serverUrl(`sc_missing_${suffix}`, role) });
    expect(failureLine(run)).toBe(
      `[start] database "sc_missing_${suffix}" does not exist and ${role} may not create it: create it (createdb -O ${role} sc_missing_${suffix}) or name an existing one in DATABASE_URL`,
    );
    expect((await admin(`select 1 from pg_database where datname = 'sc_missing_${suffix}'`)).rowCount).toBe(0);
  });

  it('a server that refuses the connection: one line naming where and what to do', async () => {
    const run = await start({ DATABASE_URL: 'postgres://shop:secret@127.0.0.1:1/shop' });
    const line = failureLine(run);
    expect(line).toBe(
      '[start] PostgreSQL at 127.0.0.1:1/shop (user shop) refused the connection: start PostgreSQL there, or fix DATABASE_URL (unset it to use the embedded one)',
    );
    expect(line).not.toContain('secret');
  });

  it('a configuration mistake: the one line of the configuration error', async () => {
    const run = await start({ DATABASE_URL: serverUrl(created), PORT: 'eighty' });
    expect(failureLine(run)).toMatch(/^\[start\] .*PORT/);
  });
});

describe('the one line for failures the suite cannot provoke on this server', () => {
  const at = { stage: 'postgres' as const, databaseUrl: 'postgres://shop:secret@db.internal:5432/shop' };
  it('a wrong password names the user and DATABASE_URL, never the password', () => {
    const line = describeStartFailure(Object.assign(new Error('password authentication failed for user "shop"'), { code: '28P01' }), at);
    expect(line).toBe(
      'PostgreSQL at db.internal:5432/shop (user shop) rejected the password: put the right one in DATABASE_URL (postgres://user:password@host:port/db)',
    );
  });
  it('no Temporal CLI and no Go to build it: one line naming the three ways out', () => {
    const saved = { PATH: process.env.PATH, TEMPORAL_CLI: process.env.TEMPORAL_CLI };
    process.env.PATH = join(dataDir, 'empty-path');
    delete process.env.TEMPORAL_CLI;
    try {
      // A folder with no .tools/bin/temporal stands for a fresh clone.
      const err = (() => {
        try {
          ensureTemporalCli(dataDir, () => undefined);
        } catch (e) {
          return e;
        }
        throw new Error('found a Temporal CLI');
      })();
      expect(describeStartFailure(err, { stage: 'temporal-cli' })).toBe(
        'no Temporal CLI found ($TEMPORAL_CLI, PATH, .tools/bin) and Go is not installed to build it: install Go, or put the temporal CLI v1.5.1 on PATH (or in TEMPORAL_CLI), or set TEMPORAL_ADDRESS',
      );
    } finally {
      process.env.PATH = saved.PATH;
      if (saved.TEMPORAL_CLI !== undefined) process.env.TEMPORAL_CLI = saved.TEMPORAL_CLI;
    }
  });
  it('an unexpected error is still one line, pointing at START_DEBUG for the stack', () => {
    expect(describeStartFailure(new Error('boom\n    at somewhere'), { stage: 'other' })).toBe(
      'could not start: boom (START_DEBUG=1 npm start prints the stack)',
    );
  });
});
