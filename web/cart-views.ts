// The cart page's views: the cart with its delivery form, and the pages a closed cart shows instead.
import type { PricedCart } from '../domain/cart.js';
import { toNumericString } from '../domain/money.js';
import { SHOPPER_FIELDS, type ShopperField } from '../domain/shopper-form.js';
import type { CartSession } from '../services/checkout/session-row.js';
import { formatMoney } from './format.js';
import { html, page, type SafeHtml } from './html.js';

export interface CartForm {
  values: Partial<Record<ShopperField, string>>;
  errors: Partial<Record<ShopperField, string>>;
}

const LABELS: Record<ShopperField, { label: string; type: string; autocomplete: string }> = {
  name: { label: 'Full name', type: 'text', autocomplete: 'name' },
  phone: { label: 'Phone', type: 'tel', autocomplete: 'tel' },
  address: { label: 'Address', type: 'text', autocomplete: 'street-address' },
  city: { label: 'City', type: 'text', autocomplete: 'address-level2' },
  country: { label: 'Country', type: 'text', autocomplete: 'country-name' },
  note: { label: 'Note for the seller (optional)', type: 'text', autocomplete: 'off' },
};

function field(name: ShopperField, form: CartForm): SafeHtml {
  const { label, type, autocomplete } = LABELS[name];
  const error = form.errors[name];
  const value = form.values[name] ?? '';
  const described = error ? `${name}-error` : undefined;
  const input =
    name === 'note'
      ? html`<textarea id="${name}" name="${name}" rows="3" maxlength="2000" aria-describedby="${described}">${value}</textarea>`
      : html`<input id="${name}" name="${name}" type="${type}" autocomplete="${autocomplete}" value="${value}" required aria-invalid="${error ? 'true' : 'false'}" aria-describedby="${described}">`;
  return html`<label for="${name}">${label}</label>${input}${error ? html`<div class="error" id="${name}-error">${error}</div>` : ''}`;
}

function linesTable(cart: PricedCart, currency: string): SafeHtml {
  const rows = cart.lines.map(
    (l) => html`<tr><td>${l.product.name}${l.variantLabel ? html`<br><span class="muted">${l.variantLabel}</span>` : ''}</td>
      <td>${l.quantity} × ${formatMoney(l.unitPrice, currency)}</td><td>${formatMoney(l.lineTotal, currency)}</td></tr>`,
  );
  return html`<table><thead><tr><th>Item</th><th>Quantity</th><th>Amount</th></tr></thead><tbody>${rows}</tbody>
    <tfoot><tr><td colspan="2">Subtotal</td><td>${formatMoney(cart.subtotal, currency)}</td></tr>
    <tr><td colspan="2">Delivery</td><td>${cart.deliveryFee === 0n ? 'Free' : formatMoney(cart.deliveryFee, currency)}</td></tr>
    <tr><th colspan="2">Total</th><th id="total">${formatMoney(cart.total, currency)}</th></tr></tfoot></table>`;
}

/** The cart: lines with the service's prices, delivery, totals, and the form unless a line cannot be ordered. */
export function renderCart(session: CartSession, cart: PricedCart, form: CartForm, notice?: string): string {
  const currency = session.store.currency;
  const problems = cart.problems.map((p) => html`<li>Item ${p.index + 1}: ${p.message}.</li>`);
  const errors = Object.values(form.errors);
  const body = html`<h1>Your order</h1>
    ${notice ? html`<p class="notice" role="alert">${notice}</p>` : ''}
    ${problems.length ? html`<div class="errors" role="alert"><p><strong>This cart cannot be ordered as it is:</strong></p><ul>${problems}</ul></div>` : ''}
    ${errors.length ? html`<div class="errors" role="alert"><p><strong>Please check the form:</strong></p><ul>${errors.map((e) => html`<li>${e}</li>`)}</ul></div>` : ''}
    <div class="card">${linesTable(cart, currency)}</div>
    ${problems.length || cart.lines.length === 0 ? '' : orderForm(session, cart, form)}
    <p class="muted">This link is valid until ${session.expiresAt.toISOString().replace('T', ' ').slice(0, 16)} UTC.</p>`;
  return page(`Your order – ${session.store.name}`, body, { heading: session.store.name });
}

function orderForm(session: CartSession, cart: PricedCart, form: CartForm): SafeHtml {
  return html`<form method="post" class="card" novalidate>
    <h2>Delivery</h2>
    ${SHOPPER_FIELDS.map((f) => field(f, form))}
    <h2>Payment</h2>
    <p><strong>Cash on delivery</strong>: you pay the courier ${formatMoney(cart.total, session.store.currency)} when the parcel arrives.</p>
    <input type="hidden" name="expected_total" value="${toNumericString(cart.total)}">
    <button type="submit">Place order</button>
  </form>`;
}

/** A closed cart: gone (unknown link), expired (410) or already ordered (409); never a form. */
export function renderClosed(
  storeName: string | null,
  heading: string,
  message: string,
  links: { label: string; href: string }[] = [],
): string {
  const body = html`<h1>${heading}</h1><p>${message}</p>${links.map((l) => html`<p><a class="button" href="${l.href}">${l.label}</a></p>`)}`;
  return page(heading, body, { heading: storeName ?? 'Store Commerce' });
}

/** The confirmation: the order number, the tracking page and the way back to the shop. */
export function renderConfirmation(
  storeName: string,
  order: { number: string; trackingUrl: string; total: string },
  returnUrl: string | null,
): string {
  const body = html`<h1 class="ok">Thank you, your order is placed</h1>
    <div class="card"><p>Order number: <strong id="order-number">${order.number}</strong></p>
    <p>Total to pay on delivery: <strong>${order.total}</strong></p>
    <p>The seller will confirm it and let you know when it ships.</p>
    <p><a class="button" href="${order.trackingUrl}">Track your order</a></p></div>
    ${returnUrl ? html`<p><a href="${returnUrl}">Back to the shop</a></p>` : ''}`;
  return page(`Order ${order.number} – ${storeName}`, body, { heading: storeName });
}
