import { Migration } from '@mikro-orm/migrations';

/**
 * Lanes: long-lived workflows (a store's webhook lane, a connection's push) whose activity keeps running
 * while work comes in. `lanes.active_until` is the lease such an activity renews: while it holds, writers
 * wake it through NOTIFY instead of a Temporal signal. The partial indexes find a store's waiting
 * webhook work; each attempt names the workflow run and activity that made it.
 */
export class Migration20261124000100 extends Migration {
  override name = 'Migration20261124000100';

  override async up(): Promise<void> {
    this.addSql(`create table lanes (
      workflow_id text primary key,
      active_until timestamptz not null default '-infinity'
    )`);
    this.addSql(
      `create index order_events_undispatched_index on order_events (store_id, created_at, id) where dispatched_at is null and not backfill`,
    );
    this.addSql(
      `create index webhook_deliveries_pending_index on webhook_deliveries (store_id, created_at) where status = 'pending' and replay_of is null`,
    );
    this.addSql(
      `alter table webhook_deliveries add column workflow_id text null, add column run_id text null, add column activity_id text null`,
    );
  }
}
