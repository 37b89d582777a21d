import { unavailable } from '../../contract/errors.js';

/**
 * How many password hashes (scrypt, ~0.5 s of CPU and 128 MiB each) run at once in this process, and how
 * many may wait for one. libuv has 4 threads for all of crypto, DNS and files: two stay free for the rest,
 * and a short queue keeps the wait (and the memory of waiting requests) bounded; beyond it, 503.
 */
export const PASSWORD_HASHING = { atOnce: 2, waiting: 8, retryAfterSeconds: 2 } as const;

/**
 * A bound on concurrent password hashing with a short FIFO queue: `run` starts the work at once when
 * fewer than `atOnce` run, waits in line when fewer than `waiting` wait, and otherwise refuses at once
 * with 503 and Retry-After (nothing hashed). `started` counts every hash begun (a metric, and the tests' proof).
 */
export class HashingGate {
  private running = 0;
  private readonly line: (() => void)[] = [];
  started = 0;

  constructor(
    public atOnce: number,
    public waiting: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running < this.atOnce) this.running++;
    else if (this.line.length < this.waiting) await new Promise<void>((resolve) => this.line.push(resolve));
    else throw unavailable('Too many passwords are being checked right now; retry in a few seconds.', PASSWORD_HASHING.retryAfterSeconds);
    // A finished hash hands its place to the first in line (running stays the same), or frees it.
    try {
      this.started++;
      return await work();
    } finally {
      const next = this.line.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Hashes running now, and waiting for a place. */
  get counts(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.line.length };
  }
}

/** The process's one gate: every sign-up, sign-in and password change hashes through it (the thread pool is per process). */
export const passwordHashing = new HashingGate(PASSWORD_HASHING.atOnce, PASSWORD_HASHING.waiting);
