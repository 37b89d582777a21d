// Child process that runs the embedded PostgreSQL (the server binaries npm installed), kept apart
// from our own processes so that however the parent ends, the server ends in order with it.
// Usage: embedded-server <databaseDir> <port>; prints "READY" once it accepts connections and stops
// when its stdin closes (the parent ended, however it ended) or on SIGTERM. Any failure: one line
// on stderr saying why, and exit code 1.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { placeEmbedded } from './embedded-place.js';

const [requestedDir, port] = [resolve(process.argv[2]!), Number(process.argv[3])];
const PASSWORD = 'postgres';
// Small footprint: PostgreSQL shares two cores with Temporal, the worker and the API.
const FLAGS = [
  '-c',
  'shared_buffers=128MB',
  '-c',
  'max_connections=200',
  '-c',
  'listen_addresses=127.0.0.1',
  '-c',
  'unix_socket_directories=',
];

const fail = (line: string): never => {
  process.stderr.write(`FAILED: ${line}\n`);
  process.exit(1);
};

let place;
try {
  place = placeEmbedded(requestedDir);
} catch (err) {
  fail((err as Error).message);
}
const { nativeDir, databaseDir, runAs, notes } = place!;
for (const note of notes) process.stderr.write(`NOTE: ${note}\n`);
const bin = (name: string) => join(nativeDir, 'bin', name);
const env = { ...process.env, LC_MESSAGES: 'C' };

if (!existsSync(join(databaseDir, 'PG_VERSION'))) {
  const pwfile = join(tmpdir(), `sc-pg-password-${randomBytes(6).toString('hex')}`);
  writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o600 });
  if (runAs) chownSync(pwfile, runAs.uid, runAs.gid);
  const init = spawnSync(
    bin('initdb'),
    [`--pgdata=${databaseDir}`, '--auth=password', '--username=postgres', `--pwfile=${pwfile}`, '--encoding=UTF8', '--lc-messages=C'],
    { ...runAs, env, encoding: 'utf8' },
  );
  rmSync(pwfile, { force: true });
  if (init.status !== 0) {
    process.stderr.write(init.stderr ?? '');
    const reason = init.error?.message ?? (init.stderr ?? '').trim().split('\n').filter(Boolean).at(-1) ?? `code ${init.status}`;
    fail(`initdb could not create the cluster in ${databaseDir}: ${reason}`);
  }
}

const server: ChildProcess = spawn(bin('postgres'), ['-D', databaseDir, '-p', String(port), ...FLAGS], {
  ...runAs,
  env,
  stdio: ['ignore', 'ignore', 'pipe'],
});
let ready = false;
let lastLines: string[] = [];
server.stderr!.on('data', (chunk: Buffer) => {
  const text = chunk.toString();
  process.stderr.write(text);
  lastLines = [...lastLines, ...text.split('\n').filter(Boolean)].slice(-5);
  if (!ready && text.includes('database system is ready to accept connections')) {
    ready = true;
    process.stdout.write('READY\n');
  }
});
server.once('error', (err) => fail(`could not run ${bin('postgres')}: ${err.message}`));
server.once('exit', (code, signal) => {
  if (stopping) process.exit(0);
  const why = lastLines.find((l) => /FATAL|could not|already in use/i.test(l)) ?? lastLines.at(-1) ?? '';
  fail(`PostgreSQL ${ready ? 'stopped' : 'did not start'} (${signal ?? `code ${code}`}): ${why.replace(/^.*?(FATAL|LOG|ERROR):\s*/, '')}`);
});

let stopping = false;
/** A fast shutdown: open transactions roll back, committed data is on disk. */
function stop() {
  if (stopping) return;
  stopping = true;
  if (server.exitCode !== null || server.signalCode !== null) process.exit(0);
  server.kill('SIGINT');
}
process.stdin.resume();
process.stdin.on('end', stop);
process.on('SIGTERM', stop);
// A Ctrl-C reaches the whole terminal's process group; the parent decides when we stop (stdin).
process.on('SIGINT', () => undefined);
