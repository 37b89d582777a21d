import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formatAmount, inWords } from '../../domain/display.js';
import { ORDER_TRANSITIONS } from '../../domain/order-status.js';
import { statusHistory } from '../../services/dashboard/scoped.js';
import { listOrderMessages } from '../../services/notifications/order-messages.js';
import { patchOrder, type OrderEditor } from '../../services/orders/change.js';
import { presentOrder } from '../../services/orders/present.js';
import { findOrderRow } from '../../services/orders/read.js';
import { ApiError } from '../../contract/errors.js';
import type { Order } from '../../contract/schemas/orders.js';
import { OrderPatch } from '../../contract/schemas/orders.js';
import { html, type SafeHtml } from '../html.js';
import { formOf } from './guard.js';
import { sendStorePage, storePath } from './layout.js';
import { sendMessage, when } from './render.js';
import { csrfField } from './session.js';

type Params = { Params: { storeId: string; orderId: string }; Querystring: { done?: string } };
const webLink = (url: string | null) =>
  url && /^https?:\/\//i.test(url) ? html`<a href="${url}" rel="noreferrer">${url}</a>` : (url ?? '—');
const row = (label: string, value: unknown) =>
  html`<tr><th scope="row">${label}</th><td>${value === null || value === undefined || value === '' ? '—' : value}</td></tr>`;

/** The patch the change form asks for: only what differs from the order, as PATCH /orders/{id} would receive it. */
export function patchFromForm(form: URLSearchParams, order: Order): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  const status = form.get('status');
  if (status && status !== order.status) patch.status = status;
  const tracking: Record<string, string> = {};
  for (const field of ['number', 'courier', 'url'] as const) {
    const value = (form.get(`tracking_${field}`) ?? '').trim();
    if (value !== (order.tracking[field] ?? '')) tracking[field] = value;
  }
  if (Object.keys(tracking).length) patch.tracking = tracking;
  const comment = (form.get('comment') ?? '').trim();
  if (comment) patch.comment = comment;
  return patch;
}

async function orderPage(
  request: FastifyRequest<Params>,
  reply: FastifyReply,
  order: Order,
  opts: { status?: number; error?: string | null; notice?: string | null } = {},
) {
  const store = request.ownedStore!;
  const [history, messages] = await Promise.all([
    statusHistory(request.server.orm.em, order.id),
    listOrderMessages(request.server.orm.em, store.id, order.id),
  ]);
  const c = order.customer;
  const money = (amount: number | string | null | undefined) => formatAmount(amount, order.currency);
  const summary = html`<table><tbody>${row('Status', html`<span class="dash-status">${inWords(order.status)}</span>`)}${row('Source', order.source)}${row('External id', order.external_id)}${row('External number', order.external_number)}
${row('External status', order.external_status)}${row('On the outside platform', webLink(order.external_url))}${row('Payment', `${inWords(order.payment.status)} · ${inWords(order.payment.method)}${order.payment.external_method_title ? ` (${order.payment.external_method_title})` : ''}`)}
${row('Total', money(order.totals.total))}${row('Shipping', money(order.totals.shipping))}${row('Discount', money(order.totals.discount))}${row('COD fee', money(order.totals.cod_fee))}
${row('Risk', order.risk ? `${order.risk.level}: ${order.risk.flags.map((f) => f.label).join('; ')}` : null)}${row('Archived', order.archived ? 'yes' : 'no')}
${row('Created', when(order.created_at, store.time_zone))}${row('Updated', when(order.updated_at, store.time_zone))}${row('Tracking page', webLink(order.tracking.page_url))}</tbody></table>`;
  const customer = html`<h2>Customer</h2><table><tbody>${row('Name', c.name)}${row('Email', c.email)}${row('Phone', c.phone)}${row('Address', [c.address, c.city, c.state, c.postcode, c.country].filter(Boolean).join(', '))}${row('Note', order.note)}</tbody></table>`;
  const items = html`<h2>Items</h2><div class="dash-scroll"><table><thead><tr><th>Item</th><th>SKU</th><th>Qty</th><th>Unit price</th></tr></thead><tbody>${order.items.map(
    (i) =>
      html`<tr><td>${i.name}${i.variant ? html` <span class="muted">${i.variant}</span>` : ''}</td><td>${i.sku ?? '—'}</td><td>${i.quantity}</td><td>${money(i.unit_price)}</td></tr>`,
  )}</tbody></table></div>`;
  const lines = history.map(
    (h) =>
      html`<tr><td>${when(h.created_at, store.time_zone)}</td><td>${inWords(h.status)}</td><td>${h.comment ?? ''}</td><td class="muted">${h.actor}</td></tr>`,
  );
  const historyTable = html`<h2>Status history</h2>${history.length ? html`<div class="dash-scroll"><table><thead><tr><th>When</th><th>Status</th><th>Comment</th><th>By</th></tr></thead><tbody>${lines}</tbody></table></div>` : html`<p class="muted">No status changes recorded yet.</p>`}`;
  const channelWords = { push: 'Phone notification (owners)', chat: 'Chat message (shopper)' } as const;
  const messageRows = messages.map(
    (m) =>
      html`<tr><td>${channelWords[m.channel]}</td><td>${inWords(m.occasion)}</td><td><span class="dash-status">${inWords(m.status)}</span></td><td>${m.detail ?? ''}</td><td>${when(m.finished_at ?? m.created_at, store.time_zone)}</td></tr>`,
  );
  const messagesTable = html`<h2>Notifications</h2>${messages.length ? html`<div class="dash-scroll"><table id="order-messages"><thead><tr><th>Channel</th><th>Occasion</th><th>Outcome</th><th>Why</th><th>When</th></tr></thead><tbody>${messageRows}</tbody></table></div>` : html`<p class="muted">No notification was sent for this order (none is for orders imported as backfill, or when no device and no chat messages are on).</p>`}`;
  return sendStorePage(
    request,
    reply,
    'orders',
    `Order ${order.order_number ?? order.external_number ?? order.id.slice(0, 8)}`,
    html`${summary}${changeForm(request, reply, order)}${historyTable}${messagesTable}${customer}${items}<p><a href="${storePath(store.id, '/orders')}">All orders</a></p>`,
    {
      status: opts.status ?? 200,
      error: opts.error ?? null,
      notice: opts.notice ?? null,
    },
  );
}

function changeForm(request: FastifyRequest<Params>, reply: FastifyReply, order: Order): SafeHtml {
  const choices = [order.status, ...ORDER_TRANSITIONS[order.status]];
  const t = order.tracking;
  return html`<h2>Change status or tracking</h2><form method="post" action="${storePath(request.ownedStore!.id, `/orders/${order.id}`)}" class="card">${csrfField(request, reply, 'session')}
<label for="o-status">Status</label><select id="o-status" name="status">${choices.map((s) => html`<option value="${s}"${s === order.status ? html` selected` : ''}>${s === order.status ? `${inWords(s)} (now)` : inWords(s)}</option>`)}</select>
<label for="o-number">Tracking number</label><input id="o-number" name="tracking_number" maxlength="255" value="${t.number ?? ''}">
<label for="o-courier">Courier</label><input id="o-courier" name="tracking_courier" maxlength="255" value="${t.courier ?? ''}">
<label for="o-url">Tracking URL</label><input id="o-url" name="tracking_url" type="url" maxlength="2000" value="${t.url ?? ''}">
<label for="o-comment">Comment (shown on the tracking page)</label><textarea id="o-comment" name="comment" rows="2" maxlength="5000"></textarea>
<button type="submit">Save</button></form>`;
}

/** An order's detail with its status history, and the status / tracking / comment change of PATCH /orders/{id}, same rules. */
export async function orderDetailPages(app: FastifyInstance) {
  const notFoundPage = (reply: FastifyReply, storeId: string) =>
    sendMessage(reply, 404, 'Not found', 'This store has no such order.', {
      href: storePath(storeId, '/orders'),
      text: 'Back to the orders',
    });
  const load = async (storeId: string, id: string) => {
    const found = await findOrderRow(app.orm.em, storeId, id);
    return found ? presentOrder(found, app.config.publicUrl) : null;
  };

  app.get<Params>('/stores/:storeId/orders/:orderId', async (request, reply) => {
    const order = await load(request.ownedStore!.id, request.params.orderId);
    if (!order) return notFoundPage(reply, request.ownedStore!.id);
    return orderPage(request, reply, order, { notice: request.query.done === 'saved' ? 'Saved.' : null });
  });

  app.post<Params>('/stores/:storeId/orders/:orderId', async (request, reply) => {
    const store = request.ownedStore!;
    const order = await load(store.id, request.params.orderId);
    if (!order) return notFoundPage(reply, store.id);
    const parsed = OrderPatch.safeParse(patchFromForm(formOf(request), order));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return orderPage(request, reply, order, {
        status: 400,
        error: `${issue.path.join(' ').replace('tracking url', 'Tracking URL')}: ${issue.message}.`,
      });
    }
    const editor: OrderEditor = {
      storeId: store.id,
      connectionId: null,
      actor: `dashboard:${request.ownerSession!.owner.id}`,
      publicUrl: app.config.publicUrl,
    };
    try {
      await patchOrder(app.orm.em, editor, order.id, parsed.data);
    } catch (err) {
      if (!(err instanceof ApiError) || (err.code !== 'conflict' && err.code !== 'invalid_request')) throw err;
      return orderPage(request, reply, order, { status: err.status, error: `Not changed: ${err.message}` });
    }
    return reply.redirect(storePath(store.id, `/orders/${order.id}?done=saved`), 303);
  });
}
