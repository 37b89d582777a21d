// The worker's stand-in for autovacuum's ANALYZE where the server has it off (services/housekeeping/statistics.ts
// says why): every few seconds one catalogue read, and an ANALYZE of a table only when it changed enough.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { ANALYZE_INTERVAL_S, analyzeStaleTables } from '../services/housekeeping/statistics.js';

/** How often the keeper looks (autovacuum's own naptime is 60 s; a new deployment's tables grow faster). */
export const STATISTICS_CHECK_MS = 10_000;

export class StatisticsKeeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly orm: MikroORM,
    private readonly log: Logger,
    private readonly everyMs = STATISTICS_CHECK_MS,
    private readonly intervalS = ANALYZE_INTERVAL_S,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      // One check at a time: a slow ANALYZE of a big table delays the next look, never doubles it.
      this.running = this.running.then(() => this.check());
    }, this.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async check(): Promise<void> {
    try {
      const analyzed = await analyzeStaleTables(this.orm.em.fork(), this.intervalS);
      if (analyzed.length) this.log.debug({ analyzed }, 'analyzed tables autovacuum leaves alone');
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'could not analyze tables; trying again at the next check');
    }
  }
}
