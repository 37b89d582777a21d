import { Migration } from '@mikro-orm/migrations';

/** The dashboard's accounts: store owners, which stores each may manage, their sessions, and the sign-in throttle. */
export class Migration20261122000700 extends Migration {
  override name = 'Migration20261122000700';

  override async up(): Promise<void> {
    this.addSql(`create table owners (
      id uuid primary key,
      email text not null check (email = lower(email)),
      password_hash text not null,
      created_at timestamptz not null default now(),
      constraint owners_email_unique unique (email)
    )`);

    this.addSql(`create table owner_stores (
      owner_id uuid not null references owners (id) on delete cascade,
      store_id uuid not null references stores (id) on delete cascade,
      role text not null default 'owner' check (role in ('owner')),
      created_at timestamptz not null default now(),
      primary key (owner_id, store_id)
    )`);
    this.addSql(`create index owner_stores_store_index on owner_stores (store_id)`);

    // id is the SHA-256 (hex) of the random token the cookie carries: a database leak reveals no usable cookie.
    this.addSql(`create table owner_sessions (
      id text primary key,
      owner_id uuid not null references owners (id) on delete cascade,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      last_seen_at timestamptz not null default now()
    )`);
    this.addSql(`create index owner_sessions_owner_index on owner_sessions (owner_id)`);

    // Failed sign-ins per bucket ('email:<address>', 'ip:<address>', 'signup-ip:<address>') in a fixed window.
    this.addSql(`create table sign_in_throttle (
      bucket text primary key,
      failures integer not null,
      window_started_at timestamptz not null
    )`);
    this.addSql(`create index sign_in_throttle_window_index on sign_in_throttle (window_started_at)`);
  }
}
