import { createHash, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PricedCart } from '../../domain/cart.js';
import { fromUnits, toNumericString } from '../../domain/money.js';
import type { StoredItem } from '../orders/order-record.js';
import { inferPaymentStatus, paymentMethodOf } from '../../domain/payment.js';
import { assessCodRisk, phoneKey } from '../../domain/risk.js';
import type { Shopper } from '../../domain/shopper-form.js';
import type { StoreFacts } from '../catalog/product-row.js';
import { recordOrderEvents, recordStatusHistory } from '../orders/events.js';
import { presentOrder, type OrderRow } from '../orders/present.js';

/** Who places native orders, in status history and events. */
export const CHECKOUT_ACTOR = 'checkout';

/** A native order number as shoppers see it: N- and the store's counter (N-1001, N-1002, …), never clashing with an outside shop's numbers. */
export const nativeOrderNumber = (n: number | string) => `N-${n}`;

/**
 * Creates the native order of a priced cart in the caller's transaction: the next number of the store's
 * counter, cash on delivery, status pending, exact totals (lines + the single delivery fee), the COD risk
 * flags, its status history line and its order.created event (handed to Temporal through the outbox).
 */
export async function createNativeOrder(tx: EntityManager, store: StoreFacts, cart: PricedCart, shopper: Shopper, publicUrl: string): Promise<OrderRow> {
  const [counter] = await tx.execute<{ n: string }[]>(
    `update stores set next_order_number = next_order_number + 1 where id = ? returning (next_order_number - 1)::text as n`,
    [store.id],
  );
  const phoneKeyValue = phoneKey(shopper.phone, shopper.country);
  const [history] = await tx.execute<{ n: number; c: number }[]>(
    `select count(*)::int as n, count(*) filter (where status = 'cancelled')::int as c from orders where store_id = ? and customer_phone_key = ?`,
    [store.id, phoneKeyValue],
  );
  const items: StoredItem[] = cart.lines.map((l) => ({
    name: l.product.name,
    variant: l.variantLabel,
    quantity: l.quantity,
    unit_price: toNumericString(l.unitPrice),
    sku: l.sku,
    product_id: l.product.id,
    external_product_id: null,
    image_url: l.product.imageUrl,
  }));
  const risk = assessCodRisk({
    isCod: true,
    phone: shopper.phone,
    country: shopper.country,
    address: shopper.address,
    city: shopper.city,
    total: fromUnits(cart.total),
    currency: store.currency,
    history: { ordersWithPhone: history?.n ?? 0, cancelledWithPhone: history?.c ?? 0 },
  });
  const values = {
    id: randomUUID(),
    order_number: nativeOrderNumber(counter!.n),
    status: 'pending',
    payment_method: paymentMethodOf({ isCod: true }),
    payment_status: inferPaymentStatus({ status: 'pending', isCod: true, rawStatus: null }),
    total: toNumericString(cart.total),
    shipping: toNumericString(cart.deliveryFee),
    currency: store.currency,
    customer_name: shopper.name,
    customer_phone: shopper.phone,
    customer_phone_key: phoneKeyValue,
    customer_address: shopper.address,
    customer_city: shopper.city,
    customer_country: shopper.country,
    items,
    note: shopper.note,
    risk,
  };
  const contentHash = createHash('sha256').update(JSON.stringify(values)).digest('base64url');
  const [row] = await tx.execute<OrderRow[]>(
    `insert into orders (id, store_id, origin, source, connection_id, external_id, order_number, status, payment_method, payment_status,
       is_cod, total, discount, shipping, cod_fee, currency, customer_name, customer_phone, customer_phone_key, customer_address,
       customer_city, customer_country, items, note, risk, content_hash)
     values (?, ?, 'native', 'native', null, null, ?, ?, ?, ?, true, ?, 0, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?::jsonb, ?)
     returning *`,
    [
      values.id, store.id, values.order_number, values.status, values.payment_method, values.payment_status, values.total, values.shipping,
      values.currency, values.customer_name, values.customer_phone, values.customer_phone_key, values.customer_address, values.customer_city,
      values.customer_country, JSON.stringify(items), values.note, risk === null ? null : JSON.stringify(risk), contentHash,
    ],
  );
  const order = presentOrder(row!, publicUrl);
  await recordStatusHistory(tx, [{ orderId: row!.id, status: row!.status, comment: null, actor: CHECKOUT_ACTOR }]);
  await recordOrderEvents(tx, [{ storeId: store.id, order, type: 'order.created', backfill: false, actor: CHECKOUT_ACTOR, connectionId: null }]);
  return row!;
}
