import { createHash, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import type { PricedCart } from '../../domain/cart.js';
import { fromUnits, toNumericString } from '../../domain/money.js';
import { inferPaymentStatus, paymentMethodOf } from '../../domain/payment.js';
import { assessCodRisk, phoneKey } from '../../domain/risk.js';
import type { Shopper } from '../../domain/shopper-form.js';
import type { StoreFacts } from '../catalog/product-row.js';
import { recordOrderEvents, recordStatusHistory } from '../orders/events.js';
import { presentOrder } from '../orders/present.js';
import { recordsetColumns, type ColumnName } from '../../db/tables/columns.js';
import { ORDERS, type OrderRow, type StoredItem } from '../../db/tables/orders.js';

/** Who places native orders, in status history and events. */
export const CHECKOUT_ACTOR = 'checkout';

/** A native order number as shoppers see it: N- and the store's counter (N-1001, N-1002, …), never clashing with an outside shop's numbers. */
export const nativeOrderNumber = (n: number | string) => `N-${n}`;

// The columns a native order fills; the others keep their defaults (no external id or connection, no
// discount or COD fee, not archived) or stay null.
const NATIVE_COLUMNS = [
  'id',
  'store_id',
  'origin',
  'source',
  'order_number',
  'status',
  'payment_method',
  'payment_status',
  'is_cod',
  'total',
  'shipping',
  'currency',
  'customer_name',
  'customer_phone',
  'customer_phone_key',
  'customer_address',
  'customer_city',
  'customer_country',
  'items',
  'note',
  'risk',
  'content_hash',
] as const satisfies readonly ColumnName<typeof ORDERS>[];
type NativeOrderRow = Pick<OrderRow, (typeof NATIVE_COLUMNS)[number]>;

const INSERT_NATIVE = `insert into orders (${NATIVE_COLUMNS.join(', ')})
  select ${NATIVE_COLUMNS.join(', ')} from jsonb_to_record(?::jsonb) as x(${recordsetColumns(ORDERS, NATIVE_COLUMNS)})
  returning *`;

/**
 * Creates the native order of a priced cart in the caller's transaction: the next number of the store's
 * counter, cash on delivery, status pending, exact totals (lines + the single delivery fee), the COD risk
 * flags, its status history line and its order.created event (handed to Temporal through the outbox).
 */
export async function createNativeOrder(
  tx: EntityManager,
  store: StoreFacts,
  cart: PricedCart,
  shopper: Shopper,
  publicUrl: string,
): Promise<OrderRow> {
  const [counter] = await executeBound<{ n: string }>(
    tx,
    `update stores set next_order_number = next_order_number + 1 where id = ? returning (next_order_number - 1)::text as n`,
    [store.id],
  );
  const phoneKeyValue = phoneKey(shopper.phone, shopper.country);
  const [history] = await executeBound<{ n: number; c: number }>(
    tx,
    `select count(*)::int as n, count(*) filter (where status = 'cancelled')::int as c from orders where store_id = ? and customer_phone_key = ?`,
    [store.id, phoneKeyValue],
  );
  const items: StoredItem[] = cart.lines.map((l) => ({
    name: l.product.name,
    variant: l.variantLabel,
    quantity: l.quantity,
    unit_price: fromUnits(l.unitPrice),
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
    status: 'pending' as const,
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
  const row: NativeOrderRow = {
    ...values,
    store_id: store.id,
    origin: 'native',
    source: 'native',
    is_cod: true,
    content_hash: createHash('sha256').update(JSON.stringify(values)).digest('base64url'),
  };
  const [written] = await executeBound<OrderRow>(tx, INSERT_NATIVE, [JSON.stringify(row)]);
  const order = presentOrder(written!, publicUrl);
  await recordStatusHistory(tx, [{ orderId: written!.id, status: written!.status, comment: null, actor: CHECKOUT_ACTOR }]);
  await recordOrderEvents(tx, [
    { storeId: store.id, order, type: 'order.created', backfill: false, actor: CHECKOUT_ACTOR, connectionId: null },
  ]);
  return written!;
}
