import { Migration } from '@mikro-orm/migrations';

/**
 * A connected shop's orders are one set per store, platform and site host (services/orders/sender.ts
 * originOf), no longer per connection: a shop that connects again re-sends its orders and updates them.
 * Orders copied so far move to their shop's origin. Where two connections of the same shop already made
 * two copies of one external id, the most recently updated copy takes the shop's origin and the other
 * keeps its connection's (both stay; nothing is deleted).
 */
export class Migration20261126004100 extends Migration {
  override name = 'Migration20261126004100';

  override async up(): Promise<void> {
    this.addSql(`with moved as (
      select o.id, c.platform || ':' || c.shop_host as shop_origin,
        row_number() over (partition by o.store_id, c.platform, c.shop_host, o.external_id order by o.updated_at desc, o.id) as n
      from orders o join connections c on c.id = o.connection_id
      where o.origin = o.connection_id::text and c.shop_host is not null and o.external_id is not null
    )
    update orders o set origin = m.shop_origin from moved m where o.id = m.id and m.n = 1`);
  }
}
