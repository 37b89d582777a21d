import { Migration } from '@mikro-orm/migrations';

/**
 * Tables that stay small (issue 25): the delivery log and the order events are pruned by the housekeeping
 * `retention` job (services/housekeeping/retention.ts), and a delivery's status changes become HOT updates where they can.
 *
 * PostgreSQL updates a row in place on its page, without a new entry in every index (a HOT update), only
 * when no column the update changes appears in any index, key or partial-index predicate, and the page has
 * room. A delivery is updated twice: claimed (status, attempted_at, workflow_id, run_id, activity_id) and
 * settled (status, response_status, error, duration_ms, finished_at). `status` was in two indexes (the
 * pending predicate and the by-order key), so neither update could be HOT.
 * - The waiting deliveries are found by `finished_at is null` instead of `status = 'pending'`: the claim
 *   changes no indexed column any more and is HOT; the settle sets finished_at, which takes the row out of
 *   that small index (it cannot be HOT: some update must, for the index to stay small). The lanes' pending
 *   queries name `finished_at is null` to use it (services/webhooks/lane.ts), and so does the sweep of cut-off
 *   attempts (replays included: it used to read the whole table every minute).
 * - By order: `order_id` alone (support's "what was sent for this order"); the status is read from the row.
 * - fillfactor 85 leaves each page room for the claims of the rows inserted into it.
 * - Retention deletes rows whose neighbours point at them: a replay at its first attempt (`replay_of`, a
 *   foreign key checked on every delete) and a delivery at its event (`event_id`, cascaded on every event
 *   deleted). Without an index each of those checks would read the whole table once per deleted row.
 * - Vacuum sooner (2 % dead instead of 20 %): after a day's rows are pruned the dead tuples are reclaimed
 *   in minutes, not when a fifth of a large table is dead.
 */
export class Migration20261126110100 extends Migration {
  override name = 'Migration20261126110100';

  override async up(): Promise<void> {
    this.addSql(`drop index webhook_deliveries_pending_index`);
    this.addSql(`create index webhook_deliveries_unfinished_index on webhook_deliveries (store_id, created_at) where finished_at is null`);
    this.addSql(`drop index webhook_deliveries_order_index`);
    this.addSql(`create index webhook_deliveries_order_index on webhook_deliveries (order_id)`);
    this.addSql(`create index webhook_deliveries_event_index on webhook_deliveries (event_id)`);
    this.addSql(`create index webhook_deliveries_replay_index on webhook_deliveries (replay_of) where replay_of is not null`);
    this.addSql(
      `alter table webhook_deliveries set (fillfactor = 85, autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02)`,
    );
    this.addSql(
      `alter table order_events set (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02)`,
    );
  }
}
