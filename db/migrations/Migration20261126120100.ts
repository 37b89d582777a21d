import { Migration } from '@mikro-orm/migrations';

/**
 * An endpoint's circuit (docs/webhooks.md "Circuit breaker") kept on its row: since when it is open and when its
 * last attempt failed. The dashboard shows the owner a dead endpoint, and a dispatcher's next run starts with
 * the circuit as the last one left it instead of spending another five 8 s attempts to find out again.
 * Written only when the circuit opens, a probe fails or it closes: not per delivery.
 */
export class Migration20261126120100 extends Migration {
  override name = 'Migration20261126120100';

  override async up(): Promise<void> {
    this.addSql(
      `alter table webhook_endpoints add column circuit_open_since timestamptz null, add column circuit_failed_at timestamptz null`,
    );
    this.addSql(`create index webhook_endpoints_open_circuit_index on webhook_endpoints (store_id) where circuit_open_since is not null`);
  }
}
