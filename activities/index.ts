import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../api/config.js';

export interface ActivityDeps {
  orm: MikroORM;
  config: Config;
}

/** The only door from workflows to I/O; workflows import just the type. */
export function createActivities({ orm }: ActivityDeps) {
  return {
    /** Marks an order event as handed over; counts every run so a test can prove exactly-once. */
    async recordOrderEventDispatched(eventId: string): Promise<void> {
      await orm.em
        .fork()
        .getConnection()
        .execute('update order_events set dispatched_at = coalesce(dispatched_at, now()), dispatch_count = dispatch_count + 1 where id = ?', [eventId]);
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
