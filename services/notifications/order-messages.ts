import type { EntityManager } from '@mikro-orm/postgresql';

export type MessageChannel = 'push' | 'chat';
export type MessageStatus = 'sending' | 'sent' | 'failed' | 'skipped';

export interface OrderMessageKey {
  storeId: string;
  orderId: string;
  channel: MessageChannel;
  /** What the message is about: 'created' (the only occasion so far). */
  occasion: string;
}

/**
 * Claims the one message of an order, channel and occasion before anything is sent: true only for the
 * first claim ever. A retried activity, or a second hand-off, finds the claim and sends nothing.
 */
export async function claimOrderMessage(em: EntityManager, key: OrderMessageKey): Promise<string | null> {
  const [row] = await em.execute<{ id: string }[]>(
    `insert into order_messages (store_id, order_id, channel, occasion, status) values (?, ?, ?, ?, 'sending')
     on conflict (order_id, channel, occasion) do nothing returning id::text`,
    [key.storeId, key.orderId, key.channel, key.occasion],
  );
  return row?.id ?? null;
}

/** Records how a claimed message ended: sent, failed or skipped, with the reason people read. */
export async function finishOrderMessage(em: EntityManager, id: string, status: Exclude<MessageStatus, 'sending'>, detail: string) {
  await em.execute(`update order_messages set status = ?, detail = ?, finished_at = now() where id = ?`, [
    status,
    detail.slice(0, 500),
    id,
  ]);
}

export interface OrderMessageView {
  channel: MessageChannel;
  occasion: string;
  status: MessageStatus;
  detail: string | null;
  created_at: Date;
  finished_at: Date | null;
}

/** The messages of one order of the store, as the dashboard's order detail lists them. */
export async function listOrderMessages(em: EntityManager, storeId: string, orderId: string): Promise<OrderMessageView[]> {
  return em.execute<OrderMessageView[]>(
    `select channel, occasion, status, detail, created_at, finished_at from order_messages where store_id = ? and order_id = ? order by id`,
    [storeId, orderId],
  );
}
