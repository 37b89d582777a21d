import { Migration } from '@mikro-orm/migrations';

/**
 * Dead-letter for the outbox: `failures` counts the tries that failed for a reason of the row's own
 * (Temporal refused it), not the ones Temporal was unreachable for (`attempts` counts every try and sets
 * the back-off). A row whose failures reach the relay's bound gets `dead_at` and is tried no more until
 * an operator retries it (`outbox retry`). The relay's claim skips dead rows; operators list them.
 */
export class Migration20261124000300 extends Migration {
  override name = 'Migration20261124000300';

  override async up(): Promise<void> {
    this.addSql(`alter table outbox add column failures integer not null default 0, add column dead_at timestamptz null`);
    this.addSql(`drop index outbox_pending_index`);
    this.addSql(`create index outbox_pending_index on outbox (next_attempt_at, id) where done_at is null and dead_at is null`);
    this.addSql(`create index outbox_dead_index on outbox (id) where dead_at is not null`);
  }
}
