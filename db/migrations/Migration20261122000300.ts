import { Migration } from '@mikro-orm/migrations';

/** Outbound webhooks: endpoints (secrets encrypted at rest) and every delivery attempt. */
export class Migration20261122000300 extends Migration {
  override name = 'Migration20261122000300';

  override async up(): Promise<void> {
    this.addSql(`create table webhook_endpoints (
      id uuid primary key,
      store_id uuid not null references stores (id) on delete cascade,
      url text not null,
      events text[] not null,
      secret_sealed text not null,
      active boolean not null default true,
      created_at timestamptz not null default now(),
      deleted_at timestamptz null
    )`);
    // The same URL twice in one store is a conflict (409); a deleted endpoint frees its URL.
    this.addSql(`create unique index webhook_endpoints_url_unique on webhook_endpoints (store_id, url) where deleted_at is null`);

    this.addSql(`create table webhook_deliveries (
      id uuid primary key,
      store_id uuid not null references stores (id) on delete cascade,
      endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
      event_id uuid not null references order_events (id) on delete cascade,
      event_type text not null,
      order_id uuid not null,
      replay_of uuid null references webhook_deliveries (id),
      status text not null default 'pending' check (status in ('pending', 'sending', 'delivered', 'failed', 'cancelled')),
      response_status integer null,
      error text null,
      duration_ms integer null,
      created_at timestamptz not null default now(),
      attempted_at timestamptz null,
      finished_at timestamptz null
    )`);
    // One first attempt per event and endpoint, whatever retries or duplicate hand-offs happen.
    this.addSql(
      `create unique index webhook_deliveries_first_unique on webhook_deliveries (event_id, endpoint_id) where replay_of is null`,
    );
    this.addSql(`create index webhook_deliveries_order_index on webhook_deliveries (order_id, status)`);
    this.addSql(`create index webhook_deliveries_store_index on webhook_deliveries (store_id, created_at desc)`);
  }
}
