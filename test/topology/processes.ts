// The production processes as `npm run start:api` and `npm run start:worker` run them (`node dist/…`),
// each with its own log file, so tests can SIGTERM, SIGKILL and restart them.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Proc {
  name: string;
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  output(): string;
}

/** The environment every process of the topology shares (CONTRACT.md's variables only). */
function sharedEnv(): Record<string, string> {
  const t = inject('topology');
  const env: Record<string, string> = {};
  // The parent's PATH and the like, but none of the service's own variables from the outer shell.
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !/^(PORT|HOST|PUBLIC_URL|METRICS_PORT|OTEL_|TRUST_PROXY|DATA_DIR)/.test(k)) env[k] = v;
  return {
    ...env,
    DATABASE_URL: t.databaseUrl,
    TEMPORAL_ADDRESS: t.temporalAddress,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: t.taskQueue,
    SECRETS_KEY: t.secretsKey,
    ALLOW_LOOPBACK_TARGETS: 'true',
    WEBHOOK_TIMEOUT_MS: '5000',
    LOG_LEVEL: 'info',
  };
}

function start(name: string, entry: string, env: Record<string, string>): Proc {
  const child = spawn(process.execPath, [resolve(repoRoot, entry)], {
    cwd: repoRoot,
    env: { ...sharedEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(join(inject('topology').logDir, `${name}.log`), { flags: 'a' });
  let text = '';
  for (const stream of [child.stdout!, child.stderr!])
    stream.on('data', (chunk: Buffer) => {
      log.write(chunk);
      if (text.length < 1_000_000) text += chunk.toString('utf8');
    });
  const exited = new Promise<number | null>((done) =>
    child.once('exit', (code) => {
      log.end();
      done(code);
    }),
  );
  return { name, child, exited, output: () => text };
}

/** `npm run start:api` on 127.0.0.1:port; resolves once its /readyz answers 200. */
export async function startApi(name: string, port: number, publicUrl: string): Promise<Proc> {
  const p = start(name, 'dist/api/server.js', { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: publicUrl, TRUST_PROXY: '1' });
  await until(
    async () =>
      await fetch(`http://127.0.0.1:${port}/readyz`)
        .then((r) => r.status === 200)
        .catch(() => false),
    p,
    `${name} ready on port ${port}`,
  );
  return p;
}

/** `npm run start:worker`; resolves once its Temporal worker polls the task queue. */
export async function startWorkerProcess(name: string): Promise<Proc> {
  const p = start(name, 'dist/temporal/worker-main.js', {});
  await until(() => p.output().includes('temporal worker running'), p, `${name} running`);
  return p;
}

async function until(check: () => boolean | Promise<boolean>, p: Proc, what: string, timeoutMs = 60_000) {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (p.child.exitCode !== null)
      throw new Error(`${p.name} exited with code ${p.child.exitCode} before ${what}:\n${p.output().slice(-3000)}`);
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms\n${p.output().slice(-3000)}`);
}

/** Stops a process with SIGTERM (SIGKILL after 30 s) and resolves with its exit code. */
export async function stop(p: Proc): Promise<number | null> {
  if (p.child.exitCode === null && p.child.signalCode === null) {
    p.child.kill('SIGTERM');
    const timer = setTimeout(() => p.child.kill('SIGKILL'), 30_000);
    await p.exited;
    clearTimeout(timer);
  }
  return p.exited;
}

/** Polls until check() holds; returns how long it took. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await check()) return Date.now() - started;
    await sleep(250);
  }
  throw new Error(`${what} not reached within ${timeoutMs} ms`);
}
