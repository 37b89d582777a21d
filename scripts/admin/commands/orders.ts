import { executeBound } from '../../../db/bound.js';
import { z } from '../../../contract/zod.js';
import type { OrderRow } from '../../../db/tables/orders.js';
import { iso } from '../../../domain/dates.js';
import { presentOrder } from '../../../services/orders/present.js';
import { idOption } from '../args.js';
import { defineCommand, fields } from '../command.js';
import { CommandError, UsageError } from '../errors.js';
import type { OrderStatusHistoryRow } from '../../../db/tables/order-status-history.js';
import type { OrderEventRow } from '../../../db/tables/order-events.js';

const ordersShow = defineCommand({
  name: 'orders show',
  usage: '--store ID (--number N | --external-id X | --id ORDER_ID)',
  summary: 'One order as the API shows it, with its status history and its events (and whether each was handed to Temporal).',
  options: { store: 'string', number: 'string', 'external-id': 'string', id: 'string' },
  input: z.object({
    store: idOption('store'),
    number: z.string().min(1).optional(),
    'external-id': z.string().min(1).optional(),
    id: idOption('order').optional(),
  }),
  async run({ em, config }, input) {
    const by = [
      input.id && (['id', input.id] as const),
      input.number && (['order_number', input.number] as const),
      input['external-id'] && (['external_id', input['external-id']] as const),
    ].filter(Boolean) as (readonly [string, string])[];
    if (by.length !== 1) throw new UsageError('give exactly one of --number, --external-id or --id');
    const [column, value] = by[0]!;
    const rows = await executeBound<OrderRow>(
      em,
      `select * from orders where store_id = ? and ${column} = ? order by created_at desc limit 2`,
      [input.store, value],
    );
    if (rows.length === 0) throw new CommandError(`no order with ${column} ${value} in store ${input.store}`);
    if (rows.length > 1) throw new CommandError(`several orders have ${column} ${value} (one per connected shop); use --id`);
    const order = presentOrder(rows[0]!, config.publicUrl);
    const history = await executeBound<Pick<OrderStatusHistoryRow, 'status' | 'comment' | 'actor' | 'created_at'>>(
      em,
      `select status, comment, actor, created_at from order_status_history where order_id = ? order by id`,
      [order.id],
    );
    const events = await executeBound<Pick<OrderEventRow, 'id' | 'type' | 'backfill' | 'actor' | 'created_at' | 'dispatched_at'>>(
      em,
      `select id, type, backfill, actor, created_at, dispatched_at from order_events where order_id = ? order by created_at`,
      [order.id],
    );
    const json = { order, history, events };
    const text = [
      `Temporal: webhook deliveries are sent by workflow webhook-lane/${input.store} (replays: webhook-delivery/<event id>/<endpoint id>/replay-<delivery id>)`,
      fields({
        id: order.id,
        number: order.order_number,
        source: order.source,
        external_id: order.external_id,
        status: order.status,
        payment: `${order.payment.method} ${order.payment.status}`,
        total: `${order.totals.total} ${order.currency}`,
        archived: order.archived,
        tracking_page: order.tracking.page_url,
      }),
      'history:',
      ...history.map((h) => `  ${iso(h.created_at)}  ${h.status}  ${h.actor}${h.comment ? `  "${h.comment}"` : ''}`),
      'events:',
      ...events.map(
        (e) =>
          `  ${iso(e.created_at)}  ${e.type}${e.backfill ? ' (backfill)' : ''}  ${e.dispatched_at ? 'handed to Temporal' : e.backfill ? 'not sent' : 'waiting'}`,
      ),
    ].join('\n');
    return { json, text };
  },
});

export const orderCommands = [ordersShow];
