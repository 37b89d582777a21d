import { Migration } from '@mikro-orm/migrations';

/**
 * A device's push subscription belongs to an owner's membership of the store, not to the store alone:
 * when the owner stops being a member (or the account goes), the store's new orders stop reaching that
 * device. Subscriptions already orphaned are removed first.
 */
export class Migration20261126006100 extends Migration {
  override name = 'Migration20261126006100';

  override async up(): Promise<void> {
    this.addSql(`delete from push_subscriptions p
      where not exists (select 1 from owner_stores m where m.owner_id = p.owner_id and m.store_id = p.store_id)`);
    this.addSql(`alter table push_subscriptions add constraint push_subscriptions_membership_foreign
      foreign key (owner_id, store_id) references owner_stores (owner_id, store_id) on delete cascade`);
  }
}
