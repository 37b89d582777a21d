import { Migration } from '@mikro-orm/migrations';

/** Orders: connected shops (the minimum orders need), orders, their status history and events. */
export class Migration20261122000200 extends Migration {
  override name = 'Migration20261122000200';

  override async up(): Promise<void> {
    this.addSql(`create table connections (
      id uuid primary key,
      store_id uuid not null references stores (id) on delete cascade,
      platform text not null check (platform in ('platform_a', 'platform_b')),
      status text not null default 'active',
      shop_url text null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`);
    this.addSql(`create index connections_store_id_index on connections (store_id)`);
    this.addSql(
      `alter table api_keys add constraint api_keys_connection_id_foreign foreign key (connection_id) references connections (id) on delete cascade`,
    );

    this.addSql(`create table orders (
      id uuid primary key,
      store_id uuid not null references stores (id) on delete cascade,
      origin text not null,
      source text not null check (source in ('native', 'platform_a', 'platform_b', 'api')),
      connection_id uuid null references connections (id) on delete set null,
      external_id text null,
      external_number text null,
      external_status text null,
      external_url text null,
      order_number text null,
      status text not null check (status in ('pending', 'confirmed', 'shipped', 'out_for_delivery', 'completed', 'cancelled')),
      status_comment text null,
      payment_method text not null,
      payment_status text not null check (payment_status in ('unpaid', 'pending', 'paid', 'failed', 'refunded')),
      payment_external_method text null,
      payment_external_method_title text null,
      payment_transaction_id text null,
      payment_refunded_amount numeric(15,4) null,
      is_cod boolean not null default false,
      total numeric(15,4) not null,
      discount numeric(15,4) not null default 0,
      shipping numeric(15,4) not null default 0,
      cod_fee numeric(15,4) not null default 0,
      tax numeric(15,4) null,
      currency text not null,
      customer_name text null,
      customer_email text null,
      customer_phone text null,
      customer_phone_key text null,
      customer_address text null,
      customer_city text null,
      customer_state text null,
      customer_postcode text null,
      customer_country text null,
      items jsonb not null default '[]',
      tracking_number text null,
      tracking_courier text null,
      tracking_url text null,
      tracking_status_text text null,
      note text null,
      risk jsonb null,
      archived boolean not null default false,
      content_hash text not null,
      source_updated_at timestamptz null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      version integer not null default 1
    )`);
    // External ids are unique per origin: the API, or each connected shop on its own.
    this.addSql(
      `create unique index orders_origin_external_id_unique on orders (store_id, origin, external_id) where external_id is not null`,
    );
    // Keyset pages, newest first, with and without archived orders, and by status.
    this.addSql(`create index orders_page_index on orders (store_id, created_at desc, id desc)`);
    this.addSql(`create index orders_live_page_index on orders (store_id, created_at desc, id desc) where not archived`);
    this.addSql(`create index orders_status_page_index on orders (store_id, status, created_at desc, id desc) where not archived`);
    this.addSql(`create index orders_updated_index on orders (store_id, updated_at)`);
    this.addSql(`create index orders_external_id_index on orders (store_id, external_id)`);
    this.addSql(`create index orders_number_index on orders (store_id, order_number)`);
    this.addSql(`create index orders_phone_key_index on orders (store_id, customer_phone_key) where customer_phone_key is not null`);

    this.addSql(`create table order_status_history (
      id bigserial primary key,
      order_id uuid not null references orders (id) on delete cascade,
      status text not null,
      comment text null,
      actor text not null,
      created_at timestamptz not null default now()
    )`);
    this.addSql(`create index order_status_history_order_index on order_status_history (order_id, id)`);

    this.addSql(`create table order_events (
      id uuid primary key,
      store_id uuid not null references stores (id) on delete cascade,
      order_id uuid not null references orders (id) on delete cascade,
      type text not null,
      backfill boolean not null default false,
      actor text not null,
      connection_id uuid null,
      payload jsonb not null,
      created_at timestamptz not null default now(),
      dispatched_at timestamptz null,
      dispatch_count integer not null default 0
    )`);
    this.addSql(`create index order_events_order_index on order_events (order_id, created_at)`);
    this.addSql(`create index order_events_store_index on order_events (store_id, created_at)`);
  }
}
