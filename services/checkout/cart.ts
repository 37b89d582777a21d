import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import { numbered, prepared, runPrepared } from '../../db/prepared.js';
import { priceCart, type CartLine, type CartProduct, type PricedCart } from '../../domain/cart.js';
import { toUnits } from '../../domain/money.js';
import { PRODUCT_COLUMNS, toCartProduct, type StoreFacts } from '../catalog/product-row.js';
import type { ProductRow } from '../../db/tables/products.js';

const CART_PRODUCTS = `select ${PRODUCT_COLUMNS} from products where store_id = ? and id = any(?::uuid[]) order by id`;
// Every checkout session and cart page reads its products: prepared, planned once per pooled connection.
const CART_PRODUCTS_PREPARED = prepared(numbered(CART_PRODUCTS));

/**
 * The store's products named by the lines, keyed by id (another store's ids are simply absent). With
 * lock, the rows are locked in id order, so two carts sharing products can never deadlock.
 */
export async function loadCartProducts(
  em: EntityManager,
  storeId: string,
  lines: readonly CartLine[],
  lock = false,
): Promise<Map<string, CartProduct>> {
  const ids = [...new Set(lines.map((l) => l.product_id))];
  // A transaction's statements run on its own connection, where a prepared statement of the pool cannot go.
  const rows =
    lock || em.isInTransaction()
      ? await executeBound<ProductRow>(em, `${CART_PRODUCTS}${lock ? ' for update' : ''}`, [storeId, ids])
      : await runPrepared<ProductRow>(em, CART_PRODUCTS_PREPARED, [storeId, ids]);
  return new Map(rows.map((row) => [row.id, toCartProduct(row)]));
}

/** The lines checked and priced with the catalogue as it is now; an unpublished store sells nothing. */
export async function priceLines(em: EntityManager, store: StoreFacts, lines: readonly CartLine[], lock = false): Promise<PricedCart> {
  const products = store.published ? await loadCartProducts(em, store.id, lines, lock) : new Map<string, CartProduct>();
  return priceCart(lines, products, toUnits(store.standard_delivery_fee));
}
