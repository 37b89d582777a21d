import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopChild } from '../../dev/temporal/dev-server.js';
import { onCleanup, trackChild } from './cleanup.js';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const logDir = resolve(repoRoot, '.data', 'bench-logs');

export interface RunningProcess {
  name: string;
  child: ChildProcess;
  pid: number;
  /** SIGTERM, then SIGKILL after 10 s; safe to call twice. */
  stop(): Promise<void>;
}

/**
 * The node arguments of one of package.json's production start scripts (`start:api`, `start:worker`:
 * `node [flags] dist/…`), so the bench runs the service exactly as `npm run start:api` does. `extraFlags`
 * go after the script's own flags, so a flag the script also sets (`--max-semi-space-size`) takes the
 * extra value: Node keeps the last of a repeated V8 flag.
 */
export function startScriptArgs(script: 'start:api' | 'start:worker', extraFlags: string[] = []): string[] {
  const scripts = (JSON.parse(readFileSync(resolve(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const [command, ...args] = (scripts[script] ?? '').split(/\s+/).filter(Boolean);
  if (command !== 'node' || args.length === 0)
    throw new Error(`package.json's ${script} is not "node [flags] <script>": ${scripts[script]}`);
  return [...args.slice(0, -1), ...extraFlags, args.at(-1)!];
}

/**
 * Runs `npm run build` (tsc and the workflow bundle into dist/), as production does before starting; output in
 * .data/bench-logs/build.log. Asynchronous, so the set-up can make the database and start Temporal meanwhile.
 */
export async function buildService(): Promise<void> {
  mkdirSync(logDir, { recursive: true });
  // This Node first on PATH: the build's tsx step must not run on an older node found there.
  const path = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`;
  const child = spawn('npm', ['run', 'build'], { cwd: repoRoot, env: { ...process.env, PATH: path }, stdio: ['ignore', 'pipe', 'pipe'] });
  trackChild(child);
  const output: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => output.push(c));
  child.stderr.on('data', (c: Buffer) => output.push(c));
  const status = await new Promise<number | string>((done) => {
    child.on('error', (err) => done(err.message));
    child.on('close', (code, signal) => done(code ?? signal ?? 'unknown'));
  });
  writeFileSync(resolve(logDir, 'build.log'), Buffer.concat(output));
  if (status !== 0)
    throw new Error(`npm run build failed (${typeof status === 'number' ? `exit ${status}` : status}); see .data/bench-logs/build.log`);
}

/** Starts `node <args>` from the repository root, output in .data/bench-logs/<name>.log; stopped at cleanup. */
export function spawnNode(name: string, args: string[], env: Record<string, string>): RunningProcess {
  mkdirSync(logDir, { recursive: true });
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  trackChild(child);
  const log = createWriteStream(resolve(logDir, `${name}.log`));
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  let stopped: Promise<void> | undefined;
  const stop = () => (stopped ??= stopChild(child));
  onCleanup(name, stop);
  return { name, child, pid: child.pid!, stop };
}

/** Resolves once GET url answers below 500; throws when the process exits first or time runs out. */
export async function waitForHttp(url: string, proc: RunningProcess, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) {
      throw new Error(`${proc.name} exited (${proc.child.exitCode ?? proc.child.signalCode}); see .data/bench-logs/${proc.name}.log`);
    }
    const status = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.status,
      () => 0,
    );
    if (status > 0 && status < 500) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${proc.name} did not answer ${url} within ${timeoutMs} ms`);
}

/** Resident memory of a process in MB (from /proc), or NaN where unavailable. */
export function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Peak resident memory of a process in MB (VmHWM: exact, unlike sampling), or NaN where unavailable. */
export function peakRssMb(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Restarts a process's peak (VmHWM) from its current RSS; false where the kernel refuses (then the peak covers its whole life). */
export function resetPeakRss(pid: number): boolean {
  try {
    // "5" resets the peak RSS high-water mark (proc(5), clear_refs); nothing else about the process changes.
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
