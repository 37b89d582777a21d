import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join, resolve } from 'node:path';
import { freePort } from '../../config/free-port.js';

export const TEMPORAL_CLI_VERSION = 'v1.5.1';

/** The Temporal CLI, found as CONTRACT.md says: $TEMPORAL_CLI, `temporal` on PATH, then .tools/bin/temporal. */
export function findTemporalCli(repoRoot: string): string | undefined {
  const fromEnv = process.env.TEMPORAL_CLI;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'temporal'))) return join(dir, 'temporal');
  }
  const local = join(repoRoot, '.tools', 'bin', 'temporal');
  return existsSync(local) ? local : undefined;
}

/** Finds the CLI, or builds it into .tools/bin with Go (minutes on first run; progress is printed). */
export function ensureTemporalCli(repoRoot: string, log: (line: string) => void = console.log): string {
  const found = findTemporalCli(repoRoot);
  if (found) return found;
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.status !== 0) {
    throw new Error(
      `no Temporal CLI found ($TEMPORAL_CLI, PATH, .tools/bin) and Go is not installed to build it: install Go, or put the temporal CLI ${TEMPORAL_CLI_VERSION} on PATH (or in TEMPORAL_CLI), or set TEMPORAL_ADDRESS`,
    );
  }
  const gobin = join(repoRoot, '.tools', 'bin');
  mkdirSync(gobin, { recursive: true });
  log(`Building the Temporal CLI ${TEMPORAL_CLI_VERSION} into .tools/bin with ${go.stdout.trim()} (first time only; takes a few minutes)…`);
  const build = spawnSync('go', ['install', '-v', `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`], {
    env: { ...process.env, GOBIN: gobin },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (build.status !== 0)
    throw new Error(
      `building the Temporal CLI with go install failed (exit ${build.status ?? build.error?.message}; its output is above): fix that and start again, or put the temporal CLI ${TEMPORAL_CLI_VERSION} on PATH (or in TEMPORAL_CLI), or set TEMPORAL_ADDRESS`,
    );
  return join(gobin, 'temporal');
}

export interface DevServer {
  address: string;
  uiUrl: string | null;
  stop(): Promise<void>;
}

export interface DevServerOptions {
  cli: string;
  /** SQLite file for durable state; omitted means in memory. */
  dbFile?: string;
  port?: number;
  ui?: boolean;
  uiPort?: number;
  logFile?: string;
  namespace?: string;
  /** More namespaces to register at start (tests that must not share the default one's schedules). */
  extraNamespaces?: string[];
}

/**
 * A free loopback port below the kernel's ephemeral range, for a dev server that a test stops and starts
 * again on the same port. While it is down its clients keep dialing it, and a port inside the ephemeral
 * range can be handed to one of those dials as its own local port: the dial then connects to itself (TCP
 * simultaneous open) and holds the port, and the restarted server failed with "bind: address already in use".
 */
export async function restartablePort(): Promise<number> {
  let ephemeralStart = 32768;
  try {
    ephemeralStart = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || ephemeralStart;
  } catch {
    // Not Linux: the usual start of the range.
  }
  const lowest = Math.min(10_000, ephemeralStart - 1000);
  for (let tries = 0; tries < 50; tries++) {
    const candidate = lowest + Math.floor(Math.random() * (ephemeralStart - lowest));
    if ((await freePort(candidate)) === candidate) return candidate;
  }
  return freePort();
}

/** Starts `temporal server start-dev` on loopback and resolves once its frontend accepts connections. */
export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const port = await freePort(opts.port ?? 0);
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--log-level',
    'warn',
    '--namespace',
    opts.namespace ?? 'default',
    ...(opts.extraNamespaces ?? []).flatMap((name) => ['--namespace', name]),
  ];
  let uiUrl: string | null = null;
  if (opts.ui) {
    const uiPort = await freePort(opts.uiPort ?? 0);
    args.push('--ui-port', String(uiPort));
    uiUrl = `http://127.0.0.1:${uiPort}`;
  } else {
    args.push('--headless');
  }
  // An activity scheduled by a workflow task goes straight back to the worker that completed it, one
  // round trip through the server's task queue less (webhook latency; bench/README.md, "Webhooks").
  args.push('--dynamic-config-value', 'system.enableActivityEagerExecution=true');
  // The metrics endpoint would take a fixed port; several servers (tests) must coexist.
  args.push('--metrics-port', String(await freePort()));
  if (opts.dbFile) {
    mkdirSync(resolve(opts.dbFile, '..'), { recursive: true });
    args.push('--db-filename', opts.dbFile);
  }
  const child = spawn(opts.cli, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  if (opts.logFile) {
    const out = createWriteStream(opts.logFile, { flags: 'a' });
    child.stdout!.pipe(out);
    child.stderr!.pipe(out);
  } else {
    child.stdout!.resume();
    child.stderr!.resume();
  }
  const address = `127.0.0.1:${port}`;
  await waitForPort(port, child, 60_000);
  return { address, uiUrl, stop: () => stopChild(child) };
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Temporal dev server exited with code ${child.exitCode}`);
    const open = await new Promise<boolean>((done) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), done(true)));
      socket.once('error', () => done(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`Temporal dev server did not open port ${port} within ${timeoutMs} ms`);
}

/** Stops a child process: SIGTERM, then SIGKILL after 10 s. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
