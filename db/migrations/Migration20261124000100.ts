import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook lanes: one sending lane per store. `webhook_lanes.active_until` says a lane's activity is
 * running (a lease it renews), so order writes wake it through NOTIFY instead of a Temporal signal; the
 * partial indexes find a store's waiting work; each attempt names the workflow run and activity that made it.
 */
export class Migration20261124000100 extends Migration {
  override name = 'Migration20261124000100';

  override async up(): Promise<void> {
    this.addSql(`create table webhook_lanes (
      store_id uuid primary key references stores (id) on delete cascade,
      active_until timestamptz not null default '-infinity'
    )`);
    this.addSql(`create index order_events_undispatched_index on order_events (store_id, created_at, id) where dispatched_at is null and not backfill`);
    this.addSql(`create index webhook_deliveries_pending_index on webhook_deliveries (store_id, created_at) where status = 'pending' and replay_of is null`);
    this.addSql(`alter table webhook_deliveries add column workflow_id text null, add column run_id text null, add column activity_id text null`);
  }
}
