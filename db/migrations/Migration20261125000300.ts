import { Migration } from '@mikro-orm/migrations';

/**
 * Trace context that travels with the work: the W3C `traceparent` of the request that wrote an outbox
 * row or an order event (null when tracing is off), so the relay's hand-off and the webhook POST, done
 * later by other processes and batched across orders, join that request's trace.
 */
export class Migration20261125000300 extends Migration {
  override name = 'Migration20261125000300';

  override async up(): Promise<void> {
    this.addSql(`alter table outbox add column traceparent text null`);
    this.addSql(`alter table order_events add column traceparent text null`);
  }
}
