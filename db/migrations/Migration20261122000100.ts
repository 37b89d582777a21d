import { Migration } from '@mikro-orm/migrations';

/** Foundation: stores, keys, the shared rate-limit counters and the Temporal outbox. */
export class Migration20261122000100 extends Migration {
  override name = 'Migration20261122000100';

  override async up(): Promise<void> {
    this.addSql(`create table stores (
      id uuid primary key,
      name text not null,
      slug text not null,
      currency text not null,
      mode text not null check (mode in ('full', 'tracking_only')),
      plan text not null check (plan in ('free', 'paid')),
      published boolean not null,
      standard_delivery_fee numeric(14,4) not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint stores_slug_unique unique (slug)
    )`);

    this.addSql(`create table api_keys (
      id uuid primary key,
      store_id uuid not null references stores (id) on update cascade on delete cascade,
      kind text not null check (kind in ('secret', 'publishable', 'legacy')),
      key_hash text not null,
      prefix text not null,
      scopes text[] not null,
      origins text[] not null,
      connection_id uuid null,
      label text null,
      created_at timestamptz not null default now(),
      revoked_at timestamptz null,
      constraint api_keys_key_hash_unique unique (key_hash)
    )`);
    this.addSql(`create index api_keys_store_id_index on api_keys (store_id)`);
    // CORS preflights carry no key: they find the publishable keys that allow an origin.
    this.addSql(`create index api_keys_origins_gin on api_keys using gin (origins) where revoked_at is null`);

    // Unlogged: counters are worth nothing after a crash and must be cheap to bump.
    this.addSql(`create unlogged table rate_limit_counters (
      bucket text not null,
      window_start timestamptz not null,
      count integer not null,
      primary key (bucket, window_start)
    )`);

    this.addSql(`create table outbox (
      id bigserial primary key,
      action text not null check (action in ('start', 'signal_with_start')),
      workflow_type text not null,
      workflow_id text not null,
      args jsonb not null,
      signal_name text null,
      signal_args jsonb null,
      search_attributes jsonb not null,
      summary text null,
      attempts integer not null default 0,
      last_error text null,
      created_at timestamptz not null default now(),
      next_attempt_at timestamptz not null default now(),
      done_at timestamptz null
    )`);
    this.addSql(`create index outbox_pending_index on outbox (next_attempt_at, id) where done_at is null`);
  }
}
