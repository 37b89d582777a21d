import type { FastifyInstance } from 'fastify';
import { ORDER_SOURCES, ORDER_STATUSES } from '../../domain/order-status.js';
import { listOrders } from '../../services/orders/read.js';
import { OrderListQuery } from '../../contract/schemas/orders.js';
import { formatAmount, inWords } from '../../domain/display.js';
import { html } from '../html.js';
import { sendStorePage, storePath } from './layout.js';
import { when } from './render.js';

type Query = Record<string, string | undefined>;
/** The query's single string values (a repeated parameter counts as absent). */
const strings = (query: Record<string, unknown>): Query =>
  Object.fromEntries(Object.entries(query).filter(([, v]) => typeof v === 'string')) as Query;
const FILTERS = ['status', 'source', 'external_id', 'created_since', 'updated_since', 'include_archived', 'limit'] as const;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The API's list filters from the page's query: blanks dropped, a day (from a date field) read as its start in UTC. */
export function orderFilters(query: Query): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...FILTERS, 'cursor'] as const) {
    const value = query[name]?.trim();
    if (value) out[name] = (name === 'created_since' || name === 'updated_since') && DAY.test(value) ? `${value}T00:00:00Z` : value;
  }
  return out;
}

/** Orders: a table with the API's filters (validated by the API's own schema) and cursor paging. */
export async function orderListPages(app: FastifyInstance) {
  app.get<{ Params: { storeId: string }; Querystring: Query }>('/stores/:storeId/orders', async (request, reply) => {
    const store = request.ownedStore!;
    const q = strings(request.query);
    const parsed = OrderListQuery.safeParse(orderFilters(q));
    const page = parsed.success ? await listOrders(app.orm.em, store.id, parsed.data, app.config.publicUrl) : null;
    const error = parsed.success
      ? null
      : `This filter cannot be used: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'query'} ${i.message}`).join('; ')}.`;

    const option = (value: string, current: string | undefined, label = value) =>
      html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`;
    const day = (value: string | undefined) => (value && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : '');
    const filters = html`<form method="get" action="${storePath(store.id, '/orders')}" class="card dash-filters">
<div><label for="f-status">Status</label><select id="f-status" name="status">${option('', q.status, 'any')}${ORDER_STATUSES.map((s) => option(s, q.status, inWords(s)))}</select></div>
<div><label for="f-source">Source</label><select id="f-source" name="source">${option('', q.source, 'any')}${ORDER_SOURCES.map((s) => option(s, q.source))}</select></div>
<div><label for="f-ext">External id</label><input id="f-ext" name="external_id" value="${q.external_id ?? ''}" maxlength="255"></div>
<div><label for="f-created">Created since</label><input id="f-created" name="created_since" type="date" value="${day(q.created_since)}"></div>
<div><label for="f-updated">Updated since</label><input id="f-updated" name="updated_since" type="date" value="${day(q.updated_since)}"></div>
<div><label for="f-limit">Per page</label><select id="f-limit" name="limit">${['25', '50', '100'].map((n) => option(n, q.limit ?? '25'))}</select></div>
<label class="dash-check"><input type="checkbox" name="include_archived" value="true"${q.include_archived === 'true' ? html` checked` : ''}> include archived</label>
<div><button type="submit">Filter</button> <a href="${storePath(store.id, '/orders')}">Clear</a></div></form>`;

    const rows = (page?.data ?? []).map(
      (
        o,
      ) => html`<tr><td><a href="${storePath(store.id, `/orders/${o.id}`)}">${o.order_number ?? o.external_number ?? o.external_id ?? o.id.slice(0, 8)}</a>${o.archived ? html` <span class="muted">(archived)</span>` : ''}</td>
<td>${when(o.created_at, store.time_zone)}</td><td>${o.customer.name || '—'}</td><td>${formatAmount(o.totals.total, o.currency)}</td><td><span class="dash-status">${inWords(o.status)}</span></td><td>${inWords(o.payment.status)}</td><td>${o.source}</td></tr>`,
    );
    const table = rows.length
      ? html`<div class="dash-scroll"><table><thead><tr><th>Order</th><th>Created</th><th>Customer</th><th>Total</th><th>Status</th><th>Payment</th><th>Source</th></tr></thead><tbody>${rows}</tbody></table></div>`
      : page && !FILTERS.some((name) => q[name]?.trim()) && !q.cursor
        ? html`<p class="dash-empty">No orders yet. They arrive from your storefront's checkout (add <a href="${storePath(store.id, '/products')}">products</a> first), from the API with a <a href="${storePath(store.id, '/keys')}">secret key</a>, or from a <a href="${storePath(store.id, '/connections')}">connected shop</a>.</p>`
        : html`<p>${page ? html`No orders match these filters. <a href="${storePath(store.id, '/orders')}">Clear the filters</a>.` : ''}</p>`;
    const nextHref = page?.next_cursor
      ? `${storePath(store.id, '/orders')}?${new URLSearchParams({ ...pickRaw(q), cursor: page.next_cursor })}`
      : null;
    const paging = html`<p class="dash-paging">${q.cursor ? html`<a href="${storePath(store.id, '/orders')}?${new URLSearchParams(pickRaw(q))}">First page</a>` : ''} ${nextHref ? html`<a href="${nextHref}" rel="next">Next page</a>` : ''}</p>`;
    return sendStorePage(request, reply, 'orders', 'Orders', html`${filters}${table}${paging}`, {
      status: parsed.success ? 200 : 400,
      error,
    });
  });
}

/** The page's own filter fields as they came (for links), without the cursor. */
function pickRaw(q: Query): Record<string, string> {
  return Object.fromEntries(FILTERS.flatMap((name) => (q[name]?.trim() ? [[name, q[name]!.trim()]] : [])));
}
