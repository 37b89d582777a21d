import pg from 'pg';
import type { Logger } from 'pino';
import { LANE_CHANNEL } from '../db/lanes.js';

/**
 * One LISTEN connection per worker process that tells running lane activities "work for your lane was
 * committed" (db/lanes.ts). Best effort: a lost notification only delays a lane until its next poll.
 */
export class LaneWakeups {
  private readonly listeners = new Map<string, Set<() => void>>();
  private client: pg.Client | undefined;
  private running = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  start(): void {
    this.running = true;
    void this.listen();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.client?.end().catch(() => undefined);
  }

  /** Calls `wake` on every notification for the lane (its workflow id) until the returned function is called. */
  subscribe(laneId: string, wake: () => void): () => void {
    const set = this.listeners.get(laneId) ?? new Set();
    set.add(wake);
    this.listeners.set(laneId, set);
    return () => {
      set.delete(wake);
      if (set.size === 0) this.listeners.delete(laneId);
    };
  }

  private async listen(): Promise<void> {
    while (this.running) {
      try {
        const client = new pg.Client({ connectionString: this.databaseUrl });
        client.on('notification', (n) => {
          for (const wake of this.listeners.get(n.payload ?? '') ?? []) wake();
        });
        const ended = new Promise<void>((done) => {
          client.on('error', () => done());
          client.on('end', () => done());
        });
        await client.connect();
        await client.query(`listen ${LANE_CHANNEL}`);
        this.client = client;
        await ended;
      } catch (err) {
        if (this.running) this.log.warn({ err: (err as Error).message }, 'lane wake-ups: cannot listen; lanes poll meanwhile');
      }
      if (this.running) await new Promise((r) => setTimeout(r, 2000));
    }
  }
}
