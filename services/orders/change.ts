import { writeTransaction } from '../../db/transaction.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError, notFound } from '../../contract/errors.js';
import type { OrderPatch } from '../../contract/schemas/orders.js';
import { eventsForChange } from '../../domain/order-events.js';
import { canTransition } from '../../domain/order-status.js';
import { inferPaymentStatus } from '../../domain/payment.js';
import { cleanMultiline, cleanText } from '../../domain/text.js';
import { presentOrder } from './present.js';
import type { OrderRow } from '../../db/tables/orders.js';
import { recordOrderEvents } from './events.js';
import { findOrderRow } from './read.js';
import { queueConnectionUpdate } from '../connections/updates.js';
import { executeBound } from '../../db/bound.js';

/** The service-side author of a change. */
export interface OrderEditor {
  storeId: string;
  /** Set when the change comes through a connection key (that connection may cancel its own orders). */
  connectionId: string | null;
  actor: string;
  publicUrl: string;
}

/** An order copied from an outside platform, which stays in charge of its payment, stock and cancellation. */
const isOutside = (row: OrderRow) => row.source === 'platform_a' || row.source === 'platform_b';

/**
 * Applies PATCH /orders/{id}: status (along the documented transitions), tracking, comment. Any key of the
 * store with orders:write may change any of its orders (the spec's key table); only cancelling an outside
 * platform's order needs that order's own connection key (409 otherwise; nothing changes).
 */
export async function patchOrder(em: EntityManager, editor: OrderEditor, id: string, patch: OrderPatch) {
  return writeTransaction(em, async (tx) => {
    const row = await findOrderRow(tx, editor.storeId, id, true);
    if (!row) throw notFound('order');
    const status = patch.status ?? row.status;
    if (status !== row.status) {
      if (status === 'cancelled' && isOutside(row) && editor.connectionId !== row.connection_id) {
        throw new ApiError('conflict', `This order belongs to ${row.source}; cancel it there, not here.`, 'status');
      }
      if (!canTransition(row.status, status)) {
        throw new ApiError('conflict', `An order cannot go from ${row.status} to ${status} (see docs/orders.md).`, 'status');
      }
    }
    const comment = patch.comment === undefined ? undefined : (cleanMultiline(patch.comment) ?? null);
    const tracking = {
      number: patch.tracking?.number === undefined ? row.tracking_number : (cleanText(patch.tracking.number) ?? null),
      courier: patch.tracking?.courier === undefined ? row.tracking_courier : (cleanText(patch.tracking.courier) ?? null),
      url: patch.tracking?.url === undefined ? row.tracking_url : patch.tracking.url,
    };
    const changed =
      status !== row.status ||
      !!comment ||
      tracking.number !== row.tracking_number ||
      tracking.courier !== row.tracking_courier ||
      tracking.url !== row.tracking_url;
    // Nothing to change: no write, no event, updated_at stays (updated_since pollers see nothing new).
    if (!changed) return presentOrder(row, editor.publicUrl);
    // Cash is collected at the door: a delivered COD order is paid. Not an outside platform's order: that
    // platform is in charge of its payment (spec, connected mode), and its next copy says whether it was paid.
    const payment =
      row.is_cod && status === 'completed' && row.payment_status === 'unpaid' && !isOutside(row)
        ? inferPaymentStatus({ status, isCod: true })
        : row.payment_status;
    const [updated] = await executeBound<OrderRow>(
      tx,
      `update orders set status = ?, status_comment = coalesce(?, status_comment), tracking_number = ?, tracking_courier = ?,
         tracking_url = ?, payment_status = ?, updated_at = now(), version = version + 1
       where id = ? returning *`,
      [status, comment ?? null, tracking.number, tracking.courier, tracking.url, payment, row.id],
    );
    const order = presentOrder(updated!, editor.publicUrl);
    const history = status !== row.status || comment ? [{ orderId: row.id, status, comment: comment ?? null, actor: editor.actor }] : [];
    const events = eventsForChange(row, updated!).map((type) => ({
      storeId: editor.storeId,
      order,
      type,
      backfill: false,
      actor: editor.actor,
      connectionId: editor.connectionId,
    }));
    await recordOrderEvents(tx, events, history);
    await queueConnectionUpdate(tx, {
      connectionId: row.connection_id,
      editorConnectionId: editor.connectionId,
      before: { status: row.status, tracking: presentOrder(row, editor.publicUrl).tracking },
      after: order,
      comment: comment ?? null,
    });
    return order;
  });
}

/** Archives any order of the store (never a hard delete); it then drops out of lists unless include_archived=true. */
export async function archiveOrder(em: EntityManager, editor: OrderEditor, id: string) {
  return writeTransaction(em, async (tx) => {
    const row = await findOrderRow(tx, editor.storeId, id, true);
    if (!row) throw notFound('order');
    if (!row.archived) {
      const [updated] = await executeBound<OrderRow>(
        tx,
        `update orders set archived = true, updated_at = now(), version = version + 1 where id = ? returning *`,
        [row.id],
      );
      const order = presentOrder(updated!, editor.publicUrl);
      await recordOrderEvents(tx, [
        { storeId: editor.storeId, order, type: 'order.updated', backfill: false, actor: editor.actor, connectionId: editor.connectionId },
      ]);
    }
    return { id: row.id, archived: true as const };
  });
}
