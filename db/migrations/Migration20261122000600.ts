import { Migration } from '@mikro-orm/migrations';

/** Connected shops: connect codes, connection details, and the updates sent back to each shop. */
export class Migration20261122000600 extends Migration {
  override name = 'Migration20261122000600';

  override async up(): Promise<void> {
    this.addSql(`alter table connections
      add column shop_host text null,
      add column site_url text null,
      add column push_url text null,
      add column plugin_version text null,
      add column platform_version text null,
      add column shop_name text null,
      add column currency text null,
      add column status_detail text null,
      add column webhook_secret_sealed text null,
      add column orders_synced integer not null default 0,
      add column last_order_at timestamptz null,
      add column last_heartbeat_at timestamptz null,
      add column disconnected_at timestamptz null`);
    this.addSql(`alter table connections add constraint connections_status_check check (status in ('active', 'disconnected'))`);

    this.addSql(`create table connect_codes (
      id uuid primary key,
      code_hash text not null,
      store_id uuid not null references stores (id) on delete cascade,
      platform text not null check (platform in ('platform_a', 'platform_b')),
      site_host text not null,
      site_url text not null,
      shop_name text null,
      currency text null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      used_at timestamptz null,
      expired_at timestamptz null,
      connection_id uuid null references connections (id) on delete set null,
      constraint connect_codes_code_hash_unique unique (code_hash)
    )`);

    this.addSql(`create table connection_updates (
      id uuid primary key,
      connection_id uuid not null references connections (id) on delete cascade,
      order_id uuid not null references orders (id) on delete cascade,
      external_id text not null,
      number text null,
      status text null check (status in ('shipped', 'out_for_delivery', 'completed')),
      tracking jsonb not null,
      tracking_page_url text not null,
      comment text null,
      state text not null default 'waiting' check (state in ('waiting', 'applied', 'failed', 'superseded')),
      ack_error text null,
      push_attempts integer not null default 0,
      push_failed boolean not null default false,
      last_push_error text null,
      next_push_at timestamptz not null default now(),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      acked_at timestamptz null
    )`);
    this.addSql(
      `create index connection_updates_waiting_index on connection_updates (connection_id, created_at, id) where state = 'waiting'`,
    );
    this.addSql(`create index connection_updates_order_index on connection_updates (order_id) where state = 'waiting'`);
    // orders_synced and last_order_at are read from the orders themselves, so they are always true.
    this.addSql(`create index orders_connection_index on orders (connection_id, created_at) where connection_id is not null`);
  }
}
