import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import type { OrderMessageRow } from '../../db/tables/order-messages.js';

export type MessageChannel = OrderMessageRow['channel'];
export type MessageStatus = OrderMessageRow['status'];

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
  const [row] = await executeBound<Pick<OrderMessageRow, 'id'>>(
    em,
    `insert into order_messages (store_id, order_id, channel, occasion, status) values (?, ?, ?, ?, 'sending')
     on conflict (order_id, channel, occasion) do nothing returning id::text`,
    [key.storeId, key.orderId, key.channel, key.occasion],
  );
  return row?.id ?? null;
}

/**
 * Chat messages a store may send in an hour. Anyone can place an order with any phone number on a
 * published store, so without a bound one visitor could make a store message strangers (at the store's
 * cost, under its sender's name) as fast as orders can be placed.
 */
export const CHAT_MESSAGES_PER_STORE_PER_HOUR = 200;

/** How many chat messages the store attempted in the last hour, the claim `except` left out. */
export async function recentChatMessages(em: EntityManager, storeId: string, except: string): Promise<number> {
  const [row] = await executeBound<{ n: number }>(
    em,
    `select count(*)::int as n from order_messages
      where store_id = ? and channel = 'chat' and status in ('sending', 'sent', 'failed') and created_at > now() - interval '1 hour' and id <> ?`,
    [storeId, except],
  );
  return row!.n;
}

/** Records how a claimed message ended: sent, failed or skipped, with the reason people read. */
export async function finishOrderMessage(em: EntityManager, id: string, status: Exclude<MessageStatus, 'sending'>, detail: string) {
  await executeBound(em, `update order_messages set status = ?, detail = ?, finished_at = now() where id = ?`, [
    status,
    detail.slice(0, 500),
    id,
  ]);
}

export type OrderMessageView = Pick<OrderMessageRow, 'channel' | 'occasion' | 'status' | 'detail' | 'created_at' | 'finished_at'>;

/** The messages of one order of the store, as the dashboard's order detail lists them. */
export async function listOrderMessages(em: EntityManager, storeId: string, orderId: string): Promise<OrderMessageView[]> {
  return executeBound<OrderMessageView>(
    em,
    `select channel, occasion, status, detail, created_at, finished_at from order_messages where store_id = ? and order_id = ? order by id`,
    [storeId, orderId],
  );
}
