import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';

/** True while the process runs: a killed child no one has reaped yet (a zombie, state Z) is not running. */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/** Starts the miniature harness and waits for its child's pid. */
async function startHarness() {
  const harness = spawn(process.execPath, ['--import', 'tsx', 'test/bench/fixtures-exit-handlers.ts'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  harness.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  while (!/child (\d+)/.test(output)) await new Promise((resolve) => setTimeout(resolve, 50));
  return { harness, childPid: Number(/child (\d+)/.exec(output)![1]), output: () => output };
}

describe('the bench harness on a signal', () => {
  it('a relayed second SIGINT during the cleanup is ignored: the harness cleans up and its children go', async () => {
    const { harness, childPid, output } = await startHarness();
    harness.kill('SIGINT');
    // Two signals sent together merge into one; a relayed copy comes a moment later, during the cleanup.
    await new Promise((resolve) => setTimeout(resolve, 200));
    harness.kill('SIGINT');
    const [code] = await once(harness, 'exit');
    expect(code).toBe(130);
    expect(output()).toContain('interrupted: stopping everything');
    expect(output()).not.toContain('again');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(childPid)).toBe(false);
  }, 20_000);

  it('a later second signal stops at once, and its children still go', async () => {
    const { harness, childPid, output } = await startHarness();
    harness.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    // The cleanup's slow task (2 s) still runs: a second signal now means "stop now".
    harness.kill('SIGTERM');
    const [code] = await once(harness, 'exit');
    expect(code).toBe(143);
    expect(output()).toContain('terminated again: killing what is left');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(childPid)).toBe(false);
  }, 20_000);
});
