import { Migration } from '@mikro-orm/migrations';

/**
 * The dashboard a shop owner runs a store from: the store's time zone (times on its pages), and the
 * one-time password reset links an operator issues (`admin owner reset-password`).
 */
export class Migration20261126005100 extends Migration {
  override name = 'Migration20261126005100';

  override async up(): Promise<void> {
    this.addSql(`alter table stores add column time_zone text not null default 'UTC'`);
    // id is the SHA-256 (hex) of the link's random token: a database leak reveals no usable link.
    this.addSql(`create table owner_password_resets (
      id text primary key,
      owner_id uuid not null references owners (id) on delete cascade,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      used_at timestamptz null
    )`);
    this.addSql(`create index owner_password_resets_owner_index on owner_password_resets (owner_id)`);
  }
}
