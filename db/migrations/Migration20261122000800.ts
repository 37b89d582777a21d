import { Migration } from '@mikro-orm/migrations';

/** When each key was last used (to the minute), for the dashboard's key list. */
export class Migration20261122000800 extends Migration {
  override name = 'Migration20261122000800';

  override async up(): Promise<void> {
    this.addSql(`alter table api_keys add column last_used_at timestamptz null`);
  }
}
