import { Migration } from '@mikro-orm/migrations';

/**
 * A reset link can carry a store: `owner add` for an account that already exists gives the store only to
 * whoever sets a new password through the operator's link, never to whoever made the account (anyone can
 * sign up with any address: without this, signing up first with an owner's email won their store).
 */
export class Migration20261126006300 extends Migration {
  override name = 'Migration20261126006300';

  override async up(): Promise<void> {
    this.addSql(`alter table owner_password_resets add column store_id uuid null references stores (id) on delete cascade`);
  }
}
