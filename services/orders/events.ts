import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Order } from '../../contract/schemas/orders.js';
import { currentTraceparent } from '../../observability/trace-context.js';
import { executeBound } from '../../db/bound.js';
import { laneNotify, laneWakeUpCtes } from '../../db/lanes.js';
import { OUTBOX_CHANNEL } from '../../db/outbox.js';
import { HAND_OFF_COLUMN_LIST, HAND_OFF_RECORD, handOffRow } from '../../db/tables/outbox.js';
import type { OrderEventType } from '../../domain/order-events.js';
import { deliveriesWaiting, webhookShard, webhookShards } from '../../workflows/webhooks/definitions.js';
import { signalWithStart, startWorkflow } from '../../workflows/hand-off.js';
import { workflowIds, workflows } from '../../workflows/catalog.js';

export interface NewOrderEvent {
  storeId: string;
  order: Order;
  type: OrderEventType;
  backfill: boolean;
  /** Who caused it ('key:<id>', 'connection:<id>', 'dashboard', 'checkout'). */
  actor: string;
  /** The connection whose key made the change: its own shop must not get it back (no echo). */
  connectionId: string | null;
}

/** A status history line (status, comment, who) for the tracking page. */
export interface StatusLine {
  orderId: string;
  status: string;
  comment: string | null;
  actor: string;
}

/**
 * Records order events with a snapshot of the order, in the caller's transaction, and hands to Temporal
 * (through the outbox) those that some live webhook endpoint of the store subscribes to. Backfill events,
 * and events nobody subscribes to, are kept but never sent: they are recorded as already dispatched.
 * A new order (not backfill) also starts its mobile push and its chat message (docs/notifications.md)
 * when the store has a device subscribed or chat messages on. The change's status history lines go in
 * the same statement: one round trip in all.
 */
export async function recordOrderEvents(em: EntityManager, events: NewOrderEvent[], history: StatusLine[] = []): Promise<void> {
  if (events.length === 0) return recordStatusHistory(em, history);
  // The subscribed kinds, the events, the history, the lane's state, the outbox row and the NOTIFYs
  // (delivered at commit); the values bound, not inlined (a 1 MB order is not copied into the SQL text).
  await executeBound(em, `with ${eventWritesCtes(null)} select count(*) from notified`, eventWritesValues(events, history));
}

/**
 * The WITH list (no leading `with`) that records order events, status history lines, the new orders'
 * notices and the dispatcher's wake-up, ending in a `notified` CTE the statement must read (count(*))
 * for its NOTIFYs to be sent. With `written` (the name of a CTE returning orders rows as `id`,
 * `created_at`, `updated_at`), only the rows of orders that CTE wrote are kept, and each event's snapshot
 * takes its created_at and updated_at from the written row: the order, its events and its history in
 * one statement. Its `?` values are eventWritesValues'.
 *
 * `quiet`: the list for a store with nothing to send (STORE_SENDS false, which the statement must make
 * sure of itself): the events are recorded as dispatched, with the history lines, and nothing else; no
 * `notified` CTE. Its `?` values are quietEventWritesValues'. It is the same write for such a store with
 * a third of the plan: PostgreSQL builds every plan node's state at every execution, and for a small
 * order that costs more than the rows.
 */
export function eventWritesCtes(written: string | null, quiet = false): string {
  const joined = (alias: string) => (written ? `join ${written} w on w.id = ${alias}.order_id` : '');
  // Events of one change share their order's snapshot: it is sent once (a 200-item order is not copied per event).
  // With `written`, the snapshot comes without its items, which are the row's as written (a stored item is the
  // presented one, db/tables/orders.ts StoredItem): a 200-item order is sent, and parsed, once (parsing its
  // 40 kB took PostgreSQL 0.9 ms). jsonb_set, not `||`: `||` walks every item of its right side (1 ms for
  // 200 items), jsonb_set copies the items whole (0.06 ms).
  const snapshot = '(?::jsonb -> x.s)';
  const payload = written
    ? `jsonb_set(${snapshot} || jsonb_build_object('created_at', ${isoSql('w.created_at')}, 'updated_at', ${isoSql('w.updated_at')}), '{items}', w.items)`
    : snapshot;
  const events = `event as (
       select x.n, x.id, x.store_id, x.order_id, x.type, x.backfill, x.actor, x.connection_id, ${payload} as payload, x.traceparent,
         ${quiet ? 'false' : `not x.backfill and ('*' = any(kinds) or x.type = any(kinds))`} as handed
       from jsonb_to_recordset(?::jsonb) as x(n int, id uuid, store_id uuid, order_id uuid, type text, backfill boolean,
         actor text, connection_id uuid, s int, traceparent text) ${joined('x')} ${quiet ? '' : 'cross join subscribed'}
     ), recorded as (
       insert into order_events (id, store_id, order_id, type, backfill, actor, connection_id, payload, traceparent, created_at, dispatched_at)
       select id, store_id, order_id, type, backfill, actor, connection_id, payload, traceparent, clock_timestamp(), case when handed then null else now() end
       from event order by n
     ), history as (
       insert into order_status_history (order_id, status, comment, actor, created_at)
       select x.order_id, x.status, x.comment, x.actor, clock_timestamp()
       from jsonb_to_recordset(?::jsonb) as x(n int, order_id uuid, status text, comment text, actor text) ${joined('x')} order by x.n
     )`;
  if (quiet) return events;
  return `subscribed as (
       select coalesce(array_agg(kind), '{}') as kinds
       from webhook_endpoints, unnest(events) as kind where store_id = ? and active and deleted_at is null
     ), ${events}, notice as (
       insert into outbox (${HAND_OFF_COLUMN_LIST})
       select ${HAND_OFF_COLUMN_LIST.split(', ')
         .map((c) => `x.${c}`)
         .join(', ')} from jsonb_to_recordset(?::jsonb) as x(${HAND_OFF_RECORD}, channel text, order_id uuid) ${joined('x')}
       where (channel = 'push' and exists (select 1 from push_subscriptions where store_id = ?))
          or (channel = 'chat' and exists (select 1 from chat_settings where store_id = ? and enabled))
          or (channel = 'chat-shipped' and exists (select 1 from chat_settings where store_id = ? and enabled and shipped_template_name is not null))
       returning 1
     ), ${laneWakeUpCtes(ANY_HANDED)}, notified as (
       ${laneNotify(ANY_HANDED)}
       union all select pg_notify('${OUTBOX_CHANNEL}', '') where exists (select 1 from notice)
     )`;
}

/**
 * A CTE `store_sends (sends)`: true when the store (its id three times as `?`) has something an order
 * event can be sent to: a live webhook endpoint, a push device, chat messages on. The same three facts
 * eventWritesCtes' `subscribed` and `notice` read; when none holds, the quiet list writes what the full
 * one would.
 */
export const STORE_SENDS = `store_sends as (
       select exists (select 1 from webhook_endpoints where store_id = ? and active and deleted_at is null)
         or exists (select 1 from push_subscriptions where store_id = ?)
         or exists (select 1 from chat_settings where store_id = ? and enabled) as sends
     )`;

/** The values of eventWritesCtes' `?`, in order: the events' order snapshots and the events (all of one store), history lines, notices, the wake-up. */
export function eventWritesValues(events: NewOrderEvent[], history: StatusLine[], written = false): unknown[] {
  const [snapshots, rows] = eventRecords(events, written);
  const storeId = events[0]?.storeId ?? null;
  const wakeUp = storeId ? webhookWakeUp(storeId) : null;
  const notices = storeId ? events.filter((e) => !e.backfill).flatMap((e) => orderNotices(storeId, e.order.id, e.type)) : [];
  return [
    storeId,
    snapshots,
    rows,
    statusHistoryJson(history),
    JSON.stringify(notices),
    storeId,
    storeId,
    storeId,
    wakeUp?.workflow_id ?? null,
    JSON.stringify(wakeUp ? [wakeUp] : []),
    wakeUp?.workflow_id ?? null,
  ];
}

/** The values of eventWritesCtes(written, true)'s `?`, in order: the snapshots, the events, the history lines (no hand-off is built). */
export function quietEventWritesValues(events: NewOrderEvent[], history: StatusLine[]): unknown[] {
  return [...eventRecords(events, true), statusHistoryJson(history)];
}

/** The events' order snapshots (each order once; without items when they come from the written row) and the events, as JSON. */
function eventRecords(events: NewOrderEvent[], written: boolean): [string, string] {
  // The writing request's trace (null when tracing is off): the webhook POST of each event joins it.
  const traceparent = currentTraceparent();
  const snapshots = new Map<Order, number>();
  for (const e of events) if (!snapshots.has(e.order)) snapshots.set(e.order, snapshots.size);
  const rows = events.map((e, n) => ({
    n,
    id: randomUUID(),
    store_id: e.storeId,
    order_id: e.order.id,
    type: e.type,
    backfill: e.backfill,
    actor: e.actor,
    connection_id: e.connectionId,
    s: snapshots.get(e.order),
    traceparent,
  }));
  const orders = [...snapshots.keys()].map((order) => (written ? withoutItems(order) : order));
  return [JSON.stringify(orders), JSON.stringify(rows)];
}

/** A timestamptz as the API prints it (domain/dates.ts iso: UTC, milliseconds, `Z`), in SQL. */
const isoSql = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** True when the statement's `event` CTE holds an event handed to the webhook dispatcher. */
export const ANY_HANDED = 'exists (select 1 from event where handed)';

/**
 * The outbox row that wakes the dispatcher of the store's shard: it sends the events. While it runs it
 * is woken by a NOTIFY; an idle one is woken by one outbox row (a Temporal signal) per transaction. See
 * db/lanes.ts for why none is lost.
 */
export function webhookWakeUp(storeId: string) {
  const shards = webhookShards.count;
  const shard = webhookShard(storeId, shards);
  return handOffRow(
    signalWithStart(workflows.webhookDispatch, {
      workflowId: workflowIds.webhookDispatch(shard, shards),
      args: [{ shard, shards }],
      signal: deliveriesWaiting,
      signalArgs: [],
      searchAttributes: {},
      summary: `webhook deliveries of shard ${shard} of ${shards}`,
    }),
  );
}

/**
 * The hand-offs an event may need: `order-push/<id>` and `order-chat/<id>` for a new order,
 * `order-chat/<id>/shipped` when it ships. Each is queued only when it has something to do (the
 * `notice` CTE): the push when a device of the store is subscribed, the chat message when the store
 * turned chat messages on (the plan is checked when it is sent, by chatMessagesAllowed); the shipped
 * chat message if the store named a template for it. Their workflow ids give the once.
 */
function orderNotices(storeId: string, orderId: string, type: OrderEventType) {
  const input = { storeId, orderId };
  const searchAttributes = { StoreId: storeId, OrderId: orderId };
  if (type === 'order.shipped')
    return [
      {
        ...handOffRow(
          startWorkflow(workflows.orderChat, {
            workflowId: workflowIds.orderChat(orderId, 'shipped'),
            args: [{ ...input, occasion: 'shipped' }],
            searchAttributes,
            summary: `shipped chat message of order ${orderId}`,
          }),
        ),
        channel: 'chat-shipped',
        order_id: orderId,
      },
    ];
  if (type !== 'order.created') return [];
  return [
    {
      ...handOffRow(
        startWorkflow(workflows.orderPush, {
          workflowId: workflowIds.orderPush(orderId),
          args: [input],
          searchAttributes,
          summary: `new-order push of order ${orderId}`,
        }),
      ),
      channel: 'push',
      order_id: orderId,
    },
    {
      ...handOffRow(
        startWorkflow(workflows.orderChat, {
          workflowId: workflowIds.orderChat(orderId),
          args: [input],
          searchAttributes,
          summary: `chat message of order ${orderId}`,
        }),
      ),
      channel: 'chat',
      order_id: orderId,
    },
  ];
}

// clock_timestamp() is evaluated after the sort: lines keep their order in created_at.
const STATUS_HISTORY_INSERT = `insert into order_status_history (order_id, status, comment, actor, created_at)
       select order_id, status, comment, actor, clock_timestamp()
       from jsonb_to_recordset(?::jsonb) as x(n int, order_id uuid, status text, comment text, actor text) order by n`;

const statusHistoryJson = (lines: StatusLine[]) =>
  JSON.stringify(lines.map((l, n) => ({ n, order_id: l.orderId, status: l.status, comment: l.comment, actor: l.actor })));

/** Appends status history lines (status, comment, who, when) for the tracking page. */
export async function recordStatusHistory(em: EntityManager, lines: StatusLine[]): Promise<void> {
  if (lines.length === 0) return;
  await executeBound(em, STATUS_HISTORY_INSERT, [statusHistoryJson(lines)]);
}

const withoutItems = ({ items: _items, ...order }: Order) => order;
