// The storefront's views: the product list and one product's page. Text is escaped by html``.
import type { Product } from '../contract/schemas/products.js';
import { PRODUCT_TYPE_MEANINGS } from '../domain/catalog.js';
import { toUnits } from '../domain/money.js';
import type { StoreFacts } from '../services/catalog/product-row.js';
import { formatMoney } from './format.js';
import { html, page, raw } from './html.js';

const price = (amount: number, currency: string) => formatMoney(toUnits(amount), currency);
const EXTRA_STYLE = raw(`<style>.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(180px,1fr));gap:1rem}
.grid a{color:inherit;text-decoration:none}.grid img,.gallery img{width:100%;aspect-ratio:1;object-fit:cover;border-radius:6px;background:#eee}
.gallery{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:.5rem}.was{text-decoration:line-through;color:var(--muted)}
.tag{display:inline-block;padding:.1rem .5rem;margin:.1rem;border-radius:999px;background:#eef;font-size:.85rem}</style>`);

function priceLine(p: Product) {
  return html`<span class="price">${price(p.price, p.currency)}</span>${p.compare_at_price !== null && p.compare_at_price > p.price ? html` <span class="was">${price(p.compare_at_price, p.currency)}</span>` : ''}`;
}

/** The store's live products, newest first, with a link to the next page. */
export function renderStorefront(store: StoreFacts, products: Product[], nextUrl: string | null): string {
  const cards = products.map(
    (p) => html`<div class="card"><a href="${p.url}">${p.image_url ? html`<img src="${p.image_url}" alt="">` : ''}<h2>${p.name}</h2></a>
      <p>${priceLine(p)}</p><p class="${p.in_stock ? 'ok' : 'error'}">${p.in_stock ? 'In stock' : 'Sold out'}</p></div>`,
  );
  const body = html`${EXTRA_STYLE}<h1>${store.name}</h1>
    ${products.length ? html`<div class="grid">${cards}</div>` : html`<p class="muted">No products yet.</p>`}
    ${nextUrl ? html`<p><a class="button" href="${nextUrl}">More products</a></p>` : ''}`;
  return page(store.name, body, { heading: store.name });
}

/** One product: images, price, availability, variants, categories and description. */
export function renderProduct(store: StoreFacts, p: Product, storeUrl: string): string {
  const delivery =
    p.type !== 'physical' && p.delivery_fee === 0
      ? ''
      : p.delivery_fee === null
        ? 'Standard delivery fee'
        : p.delivery_fee === 0
          ? 'Free delivery'
          : `Delivery ${price(p.delivery_fee, p.currency)}`;
  const variants = p.variants.length
    ? html`<h2>Options</h2><table><thead><tr><th>Option</th><th>Price</th><th>Availability</th></tr></thead><tbody>${p.variants.map(
        (v) => html`<tr><td>${Object.entries(v.options)
          .map(([k, val]) => `${k}: ${val}`)
          .join(', ')}</td><td>${price(v.price, p.currency)}</td>
          <td>${v.stock === null || v.stock > 0 ? 'In stock' : 'Sold out'}</td></tr>`,
      )}</tbody></table>`
    : '';
  const body = html`${EXTRA_STYLE}<p><a href="${storeUrl}">← ${store.name}</a></p>
    <h1 id="product-name">${p.name}</h1>
    ${p.images.length || p.image_url ? html`<div class="gallery">${(p.images.length ? p.images : [p.image_url]).map((src) => html`<img src="${src}" alt="${p.name}">`)}</div>` : ''}
    <p><strong>${priceLine(p)}</strong></p>
    <p class="${p.in_stock ? 'ok' : 'error'}">${p.in_stock ? 'In stock' : 'Sold out'}${p.stock !== null && p.in_stock ? ` (${p.stock} left)` : ''}</p>
    ${delivery ? html`<p class="muted">${delivery}</p>` : ''}
    ${variants}
    ${p.description ? html`<h2>Description</h2>${p.description.split('\n').map((line) => html`<p>${line}</p>`)}` : ''}
    ${p.type === 'physical' ? '' : html`<p class="muted">${PRODUCT_TYPE_MEANINGS[p.type].split(';')[0]}.</p>`}
    ${p.categories.length ? html`<p>${p.categories.map((c) => html`<span class="tag">${c}</span>`)}</p>` : ''}`;
  return page(`${p.name} – ${store.name}`, body, { heading: store.name });
}
