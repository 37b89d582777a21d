import type { ChildProcess } from 'node:child_process';

type Task = { name: string; run: () => Promise<unknown> };
const tasks: Task[] = [];
const children = new Set<ChildProcess>();
let cleaning: Promise<void> | undefined;

/** Registers something to undo at the end; undone last-registered first, each at most once. */
export function onCleanup(name: string, run: () => Promise<unknown>): void {
  tasks.push({ name, run });
}

/** Tracks a child so that it is killed even if the harness exits without cleaning up. */
export function trackChild(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
}

/** True once cleanup has begun: failures after that are expected (things are being stopped) and stay quiet. */
export function isStopping(): boolean {
  return cleaning !== undefined;
}

/** Runs every registered task in reverse order; errors are reported, never thrown. */
export function cleanup(log: (line: string) => void): Promise<void> {
  cleaning ??= (async () => {
    while (tasks.length) {
      const task = tasks.pop()!;
      try {
        await task.run();
      } catch (err) {
        log(`cleanup of ${task.name} failed: ${(err as Error).message}`);
      }
    }
  })();
  return cleaning;
}

/**
 * A second signal this soon after the first is the same stop relayed (Ctrl-C reaches tsx and the harness,
 * and tsx passes its copy on, as does `pkill -f`): it is ignored. A later one means "stop now".
 */
const RELAYED_SIGNAL_MS = 1_000;

/** Ctrl-C, SIGTERM and crashes clean up before exiting; a last-chance SIGKILL covers the rest. */
export function installExitHandlers(log: (line: string) => void): void {
  const stop = (code: number) => void cleanup(log).finally(() => process.exit(code));
  let firstSignalAt: number | undefined;
  // process.on, not once: a second signal with no handler would end the harness at once, before its
  // 'exit' handler could kill the children (the API, the worker and Temporal were left running).
  const onSignal = (what: string, code: number) => () => {
    if (firstSignalAt === undefined) {
      firstSignalAt = Date.now();
      log(`${what}: stopping everything …`);
      stop(code);
    } else if (Date.now() - firstSignalAt > RELAYED_SIGNAL_MS) {
      log(`${what} again: killing what is left without cleaning up`);
      process.exit(code);
    }
  };
  process.on('SIGINT', onSignal('interrupted', 130));
  process.on('SIGTERM', onSignal('terminated', 143));
  const crash = (err: unknown) => {
    if (isStopping()) return;
    log(`crashed: ${(err as Error)?.stack ?? String(err)}`);
    stop(1);
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  process.once('exit', () => {
    for (const child of children) child.kill('SIGKILL');
  });
}
