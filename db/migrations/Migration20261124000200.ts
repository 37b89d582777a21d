import { Migration } from '@mikro-orm/migrations';

/**
 * Checkout expiry by bucket: one Temporal workflow per store and time bucket expires every session of
 * the bucket, instead of one workflow per session. A bucket's row exists while its workflow is owed or
 * running, so the hand-off is written once per bucket (`insert … on conflict do nothing`).
 */
export class Migration20261124000200 extends Migration {
  override name = 'Migration20261124000200';

  override async up(): Promise<void> {
    this.addSql(`create table checkout_expiry_buckets (
      store_id uuid not null references stores (id) on delete cascade,
      ends_at timestamptz not null,
      primary key (store_id, ends_at)
    )`);
    this.addSql(`create index checkout_sessions_open_index on checkout_sessions (store_id, expires_at) where status = 'open'`);
  }
}
