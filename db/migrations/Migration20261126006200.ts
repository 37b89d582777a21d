import { Migration } from '@mikro-orm/migrations';

/** A store's chat messages of the last hour are counted before each one (its hourly limit): by store, newest first. */
export class Migration20261126006200 extends Migration {
  override name = 'Migration20261126006200';

  override async up(): Promise<void> {
    this.addSql(`create index order_messages_store_chat_index on order_messages (store_id, created_at) where channel = 'chat'`);
  }
}
