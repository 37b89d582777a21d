import { Migration } from '@mikro-orm/migrations';

/** Order tracking: wrong-contact counters and lockouts, per store and order number. */
export class Migration20261122000500 extends Migration {
  override name = 'Migration20261122000500';

  override async up(): Promise<void> {
    // order_key is the order number without a leading '#' (domain/tracking-contact.ts), so "#1001"
    // and "1001" share one counter. The API reads locked_until; the lockout workflow deletes the row.
    this.addSql(`create table tracking_lockouts (
      store_id uuid not null references stores (id) on delete cascade,
      order_key text not null,
      wrong_count integer not null check (wrong_count > 0),
      locked_until timestamptz null,
      last_wrong_at timestamptz not null default now(),
      primary key (store_id, order_key)
    )`);
  }
}
