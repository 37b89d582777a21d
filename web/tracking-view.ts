import { progressLine, STATUS_LABELS } from '../domain/tracking-progress.js';
import type { TrackingResult } from '../contract/schemas/tracking.js';
import { html, page, type SafeHtml } from './html.js';

const CONTACT_LABEL = 'Last 4 digits of your phone number, or your email';

const when = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;
const amount = (n: number, currency: string) =>
  `${new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 4 }).format(n)} ${currency}`;

/** Only http(s) addresses become links or images; anything else (javascript:, data:) stays text or is dropped. */
function webAddress(text: string | null, schemes = ['http:', 'https:']): string | null {
  if (!text) return null;
  try {
    return schemes.includes(new URL(text).protocol) ? text : null;
  } catch {
    return null;
  }
}

function progress(status: TrackingResult['order']['status']): SafeHtml {
  const steps = progressLine(status);
  if (!steps) return html`<p class="notice">This order was cancelled.</p>`;
  return html`<ol class="progress" aria-label="Progress">${steps.map(
    (s) => html`<li class="${s.state === 'todo' ? '' : s.state}"${s.state === 'current' ? html` aria-current="step"` : ''}>${s.label}</li>`,
  )}</ol>`;
}

function delivery(o: TrackingResult['order']): SafeHtml {
  const link = webAddress(o.tracking_link);
  const rows: [string, unknown][] = [
    ['Courier', o.shipping_courier],
    ['AWB number', o.shipping_awb],
    ['Courier status', o.shipping_status_text],
    ['Tracking link', link ? html`<a href="${link}" rel="noopener noreferrer nofollow">Follow the parcel</a>` : o.tracking_link],
  ];
  const shown = rows.filter(([, v]) => v);
  if (shown.length === 0) return html`<p class="muted">Delivery details appear here once the order is shipped.</p>`;
  return html`<table class="delivery">${shown.map(([k, v]) => html`<tr><th scope="row">${k}</th><td>${v}</td></tr>`)}</table>`;
}

function items(o: TrackingResult['order']): SafeHtml {
  return html`<table class="items">${o.items.map((item) => {
    const image = webAddress(item.image_url, ['https:']);
    return html`<tr><td>${image ? html`<img src="${image}" alt="" width="48" height="48" loading="lazy">` : ''}</td>
<td>${item.name}${item.variant ? html`<br><span class="muted">${item.variant}</span>` : ''}</td><td>× ${item.quantity}</td></tr>`;
  })}</table>`;
}

function history(o: TrackingResult['order']): SafeHtml {
  if (o.status_history.length === 0) return html``;
  return html`<h2>History</h2><table class="history"><tr><th>When</th><th>Status</th><th>Note</th></tr>${o.status_history.map(
    (h) => html`<tr><td>${when(h.created_at)}</td><td>${STATUS_LABELS[h.status] ?? h.status}</td><td>${h.comment ?? ''}</td></tr>`,
  )}</table>`;
}

/** The tracking facts of an order, as GET /tracking gives them: status, progress, delivery, items, history. No PII. */
export function trackingView(result: TrackingResult, pageUrl?: string, badgeUrl?: string): string {
  const o = result.order;
  const fees = [
    o.shipping_fee ? `shipping ${amount(o.shipping_fee, o.currency)}` : null,
    o.cod_fee ? `cash on delivery fee ${amount(o.cod_fee, o.currency)}` : null,
  ].filter(Boolean);
  const body = html`<h1>Order ${o.order_number}</h1>
<p class="status">Status: <strong>${STATUS_LABELS[o.status]}</strong></p>
${progress(o.status)}
${o.status_comment ? html`<p class="card">${o.status_comment}</p>` : ''}
<h2>Delivery</h2>${delivery(o)}
<h2>Items</h2>${items(o)}
<p>Total: <strong>${amount(o.total_amount, o.currency)}</strong>${fees.length ? html` <span class="muted">(${fees.join(', ')})</span>` : ''}</p>
${history(o)}
<p class="muted">Ordered ${when(o.created_at)} · updated ${when(o.updated_at)}</p>
${pageUrl ? html`<p><a href="${pageUrl}">Link to this order's tracking page</a></p>` : ''}`;
  return page(`Order ${o.order_number} · ${result.store.name}`, body, { heading: result.store.name, badgeUrl });
}

const errorBox = (error: string | undefined) => (error ? html`<p class="errors" role="alert">${error}</p>` : '');

/** The order page's question: the contact, before anything of the order is shown. */
export function contactForm(storeName: string, action: string, error?: string, badgeUrl?: string): string {
  const body = html`<h1>Track your order</h1>
<p>To see this order, enter the last 4 digits of the phone number you gave with it, or your email.</p>
${errorBox(error)}
<form method="post" action="${action}">
<label for="contact">${CONTACT_LABEL}</label>
<input id="contact" name="contact" required maxlength="320" autocomplete="off" autocapitalize="off" spellcheck="false">
<button type="submit">Show my order</button></form>`;
  return page(`Track your order · ${storeName}`, body, { heading: storeName, badgeUrl });
}

/** The store's tracking page: an order number and, for some orders, the contact. */
export function storeForm(storeName: string, action: string, order = '', error?: string, badgeUrl?: string): string {
  const body = html`<h1>Track your order</h1>
${errorBox(error)}
<form method="post" action="${action}">
<label for="order">Order number</label>
<input id="order" name="order" required maxlength="255" value="${order}" autocomplete="off">
<label for="contact">${CONTACT_LABEL}</label>
<input id="contact" name="contact" maxlength="320" autocomplete="off" autocapitalize="off" spellcheck="false">
<p class="muted">Orders placed on some shops need it; it is never shown.</p>
<button type="submit">Track</button></form>`;
  return page(`Track your order · ${storeName}`, body, { heading: storeName, badgeUrl });
}

/** A page with one message (unknown order, too many tries, failure). */
export function messagePage(title: string, message: string, heading?: string, back?: string): string {
  const body = html`<h1>${title}</h1><p>${message}</p>${back ? html`<p><a href="${back}">Back</a></p>` : ''}`;
  return page(title, body, heading ? { heading } : {});
}
