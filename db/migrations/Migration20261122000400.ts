import { Migration } from '@mikro-orm/migrations';

/** Catalogue and checkout: products, connected shops' external products, checkout sessions, native order numbers. */
export class Migration20261122000400 extends Migration {
  override name = 'Migration20261122000400';

  override async up(): Promise<void> {
    // Native order numbers come from this per-store counter (taken under the store row's lock).
    this.addSql(`alter table stores add column next_order_number bigint not null default 1001`);

    this.addSql(`create table products (
      id uuid primary key,
      store_id uuid not null references stores (id) on delete cascade,
      name text not null,
      description text not null default '',
      price numeric(15,4) not null check (price >= 0),
      compare_at_price numeric(15,4) null check (compare_at_price >= 0),
      delivery_fee numeric(15,4) null check (delivery_fee >= 0),
      image_url text null,
      images text[] not null default '{}',
      category text null,
      categories text[] not null default '{}',
      type text not null default 'physical' check (type in ('physical', 'digital', 'service')),
      stock integer null check (stock >= 0),
      variants jsonb not null default '[]',
      sku text null,
      archived boolean not null default false,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`);
    // Keyset pages of live products, newest first, and the category filter.
    this.addSql(`create index products_live_page_index on products (store_id, created_at desc, id desc) where not archived`);
    this.addSql(`create index products_categories_gin on products using gin (categories) where not archived`);

    // A connected shop's own products: apart from the catalogue, never joined into products, carts or pages.
    this.addSql(`create table external_products (
      connection_id uuid not null references connections (id) on delete cascade,
      external_id text not null,
      store_id uuid not null references stores (id) on delete cascade,
      name text not null,
      sku text null,
      currency text null,
      category text null,
      description text null,
      status text null,
      price numeric(15,4) null,
      stock numeric(15,4) null,
      image_url text null,
      url text null,
      images text[] not null default '{}',
      source_updated_at timestamptz null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (connection_id, external_id)
    )`);
    this.addSql(`create index external_products_store_index on external_products (store_id)`);

    this.addSql(`create table checkout_sessions (
      id uuid primary key,
      store_id uuid not null references stores (id) on delete cascade,
      token_hash text not null,
      status text not null default 'open' check (status in ('open', 'used', 'expired')),
      lines jsonb not null,
      return_url text null,
      key_id uuid null,
      order_id uuid null references orders (id) on delete set null,
      expires_at timestamptz not null,
      created_at timestamptz not null default now(),
      used_at timestamptz null,
      constraint checkout_sessions_token_hash_unique unique (token_hash)
    )`);
    this.addSql(`create index checkout_sessions_store_index on checkout_sessions (store_id, created_at desc)`);
  }
}
