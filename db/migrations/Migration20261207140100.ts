import { Migration } from '@mikro-orm/migrations';

/**
 * lz4 for the big JSON documents every order write stores: an order's items and each of its events' order
 * snapshot. PostgreSQL compresses a value over about 2 kB before storing it, with pglz unless told
 * otherwise; a 200-item order stores three such values (the items, the snapshot of order.created and of
 * order.paid): with lz4 PostgreSQL spent 2.5 ms of CPU on such an order against 3.0 with pglz (bench/order-write-cpu.ts,
 * 2026-12-07). Only new values change; those written before stay pglz, and both read
 * the same. A server built without lz4 keeps pglz: the migration leaves the columns as they are there.
 */
export class Migration20261207140100 extends Migration {
  override name = 'Migration20261207140100';

  override async up(): Promise<void> {
    this.addSql(`do $$
      begin
        alter table orders alter column items set compression lz4;
        alter table order_events alter column payload set compression lz4;
      exception when feature_not_supported or invalid_parameter_value then
        raise notice 'lz4 is not built into this PostgreSQL: the order documents stay compressed with pglz';
      end $$`);
  }
}
