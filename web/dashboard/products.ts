import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PRODUCT_TYPE_MEANINGS, PRODUCT_TYPES } from '../../domain/catalog.js';
import { formatAmount } from '../../domain/display.js';
import { NewProduct, insertProducts } from '../../services/catalog/create.js';
import { CSV_COLUMNS, importProducts, productsFromCsv, type ImportResult } from '../../services/catalog/import.js';
import { findStoreProduct, listStoreProducts, OWNER_LIST_LIMIT, setProductArchived, updateProduct } from '../../services/catalog/manage.js';
import type { ProductRow } from '../../db/tables/products.js';
import { html, type SafeHtml } from '../html.js';
import { formOf } from './guard.js';
import { sendStorePage, storePath } from './layout.js';
import { fieldError, invalidAttrs, problemsSummary, sendMessage, when, type FieldErrors } from './render.js';
import { csrfField } from './session.js';

type Params = { Params: { storeId: string; productId: string }; Querystring: { done?: string } };
const FIELDS = [
  'name',
  'price',
  'compare_at_price',
  'delivery_fee',
  'category',
  'stock',
  'type',
  'sku',
  'image_url',
  'description',
] as const;
const LABELS: Record<string, string> = {
  name: 'Name',
  price: 'Price',
  compare_at_price: 'Compare-at price',
  delivery_fee: 'Delivery fee',
  category: 'Category',
  stock: 'Stock',
  type: 'Type',
  sku: 'SKU',
  image_url: 'Image URL',
  description: 'Description',
};
const NOTICES: Record<string, string> = {
  created: 'Product added. It is on the storefront now if the store is published.',
  saved: 'Saved.',
  archived: 'Archived: it is gone from the storefront and checkout; orders keep it. Restore it any time.',
  restored: 'Restored: it is on the storefront again.',
};

/** The form's fields as typed (trimmed), for showing them again. */
const typed = (form: URLSearchParams) => Object.fromEntries(FIELDS.map((f) => [f, (form.get(f) ?? '').trim()])) as Record<string, string>;

/** A row's fields as the form shows them (amounts as their exact decimal text, without trailing zeros). */
function rowValues(row: ProductRow): Record<string, string> {
  const amount = (v: string | null) => (v === null ? '' : v.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, ''));
  return {
    name: row.name,
    price: amount(row.price),
    compare_at_price: amount(row.compare_at_price),
    delivery_fee: amount(row.delivery_fee),
    category: row.category ?? '',
    stock: row.stock === null ? '' : String(row.stock),
    type: row.type,
    sku: row.sku ?? '',
    image_url: row.image_url ?? '',
    description: row.description,
  };
}

/**
 * The form into a checked product (the same NewProduct rules as the CLI and the import); every bad field's
 * problem otherwise. Editing keeps what the form does not show: variants, extra images and categories, archived.
 */
function productFromForm(
  values: Record<string, string>,
  existing: ProductRow | null,
): { ok: true; product: NewProduct } | { ok: false; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const optional = (name: string) => values[name] || undefined;
  if (values.stock && !/^\d+$/.test(values.stock)) errors.stock = 'Stock must be a whole number of 0 or more (blank: unlimited).';
  const oldImage = existing ? (existing.image_url ?? existing.images[0] ?? '') : '';
  const input = {
    name: values.name,
    price: values.price,
    compare_at_price: optional('compare_at_price'),
    delivery_fee: optional('delivery_fee'),
    category: optional('category'),
    stock: values.stock && /^\d+$/.test(values.stock) ? Number(values.stock) : undefined,
    type: values.type || 'physical',
    sku: optional('sku'),
    image_url: optional('image_url'),
    description: optional('description'),
    ...(existing
      ? {
          images: values.image_url === oldImage ? existing.images : [],
          categories: existing.categories.filter((c) => c !== existing.category),
          variants: existing.variants.map((v) => ({ options: v.options, price: v.price, stock: v.stock, sku: v.sku })),
          archived: existing.archived,
        }
      : {}),
  };
  const parsed = NewProduct.safeParse(input);
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0] ?? 'name');
      const shown = (FIELDS as readonly string[]).includes(field) ? field : 'name';
      const message = issue.message.startsWith('amount ') ? 'must be an amount such as 19.99' : issue.message;
      errors[shown] ??= `${LABELS[field] ?? field} ${message}.`;
    }
  if (!parsed.success || Object.keys(errors).length) return { ok: false, errors };
  return { ok: true, product: parsed.data };
}

function productForm(
  request: FastifyRequest,
  reply: FastifyReply,
  action: string,
  values: Record<string, string>,
  errors?: FieldErrors,
  button = 'Add the product',
): SafeHtml {
  const store = request.ownedStore!;
  const v = (name: string) => values[name] ?? '';
  const input = (name: string, extra: SafeHtml = html``) =>
    html`<input id="p-${name}" name="${name}" value="${v(name)}"${extra}${invalidAttrs(errors, name)}>${fieldError(errors, name)}`;
  return html`<form method="post" action="${action}" class="card">${csrfField(request, reply, 'session')}
<label for="p-name">Name</label>${input('name', html` required maxlength="500"`)}
<label for="p-price">Price (${store.currency})</label>${input('price', html` required inputmode="decimal" placeholder="19.99"`)}
<label for="p-compare_at_price">Compare-at price (optional: the old price, shown struck through)</label>${input('compare_at_price', html` inputmode="decimal"`)}
<label for="p-delivery_fee">Delivery fee (blank: the store's standard fee; 0: free)</label>${input('delivery_fee', html` inputmode="decimal"`)}
<label for="p-stock">Stock (blank: unlimited)</label>${input('stock', html` inputmode="numeric"`)}
<label for="p-category">Category (optional)</label>${input('category', html` maxlength="200"`)}
<label for="p-type">Type</label><select id="p-type" name="type">${PRODUCT_TYPES.map((t) => html`<option value="${t}"${t === (v('type') || 'physical') ? html` selected` : ''}>${t}: ${PRODUCT_TYPE_MEANINGS[t]}</option>`)}</select>${fieldError(errors, 'type')}
<label for="p-sku">SKU (optional)</label>${input('sku', html` maxlength="255"`)}
<label for="p-image_url">Image URL (optional, https://…)</label>${input('image_url', html` type="url"`)}
<label for="p-description">Description (optional)</label><textarea id="p-description" name="description" rows="4"${invalidAttrs(errors, 'description')}>${v('description')}</textarea>${fieldError(errors, 'description')}
<button type="submit">${button}</button> <a href="${storePath(store.id, '/products')}">Cancel</a></form>`;
}

function importForm(request: FastifyRequest, reply: FastifyReply): SafeHtml {
  const store = request.ownedStore!;
  return html`<h2>Import products from a CSV file</h2><form method="post" action="${storePath(store.id, '/products/import')}" enctype="multipart/form-data" class="card">${csrfField(request, reply, 'session')}
<label for="import-file">CSV file (up to 2 MB; the first line names the columns)</label><input id="import-file" name="file" type="file" accept=".csv,text/csv" required>
<p class="muted">Columns: ${CSV_COLUMNS.join(', ')}. Only name and price are needed; <span class="mono">categories</span> are separated by |, a blank cell means “not given”. Example: <span class="mono">name,price,stock,category</span> then <span class="mono">Mint tea,19.99,40,Tea</span>. Rows with problems are listed and skipped; the others are added.</p>
<button type="submit">Import</button></form>`;
}

function importReport(result: ImportResult): SafeHtml {
  const failures = result.failed.length
    ? html`<div class="dash-scroll"><table class="dash-compact" id="import-failures"><thead><tr><th>Line</th><th>Name</th><th>Problem</th></tr></thead><tbody>${result.failed.map(
        (f) => html`<tr><td>${f.index}</td><td>${f.name ?? '—'}</td><td>${f.error}</td></tr>`,
      )}</tbody></table></div>`
    : html``;
  return html`<div class="card ${result.failed.length ? '' : 'dash-once'}" id="import-result"><p><strong>Imported ${result.imported} of ${result.read} product(s).</strong>${result.failed.length ? ` ${result.failed.length} row(s) were skipped:` : ''}</p>${failures}</div>`;
}

async function listPage(
  request: FastifyRequest,
  reply: FastifyReply,
  opts: { status?: number; notice?: string | null; error?: string | null; imported?: ImportResult } = {},
) {
  const store = request.ownedStore!;
  const { rows, total } = await listStoreProducts(request.server.orm.em, store.id);
  const stock = (p: ProductRow) => (p.variants.length ? `${p.variants.length} variants` : p.stock === null ? 'unlimited' : String(p.stock));
  const table = rows.length
    ? html`<div class="dash-scroll"><table id="products"><thead><tr><th>Name</th><th>Price</th><th>Stock</th><th>Category</th><th>Status</th><th>Updated</th><th></th></tr></thead><tbody>${rows.map(
        (
          p,
        ) => html`<tr><td><a href="${storePath(store.id, `/products/${p.id}`)}">${p.name}</a>${p.sku ? html`<br><span class="muted mono">${p.sku}</span>` : ''}</td>
<td>${formatAmount(p.price, store.currency)}</td><td>${stock(p)}</td><td>${p.category ?? '—'}</td><td><span class="dash-status">${p.archived ? 'Archived' : 'Live'}</span></td><td>${when(p.updated_at, store.time_zone)}</td>
<td><form method="post" action="${storePath(store.id, `/products/${p.id}/archive`)}">${csrfField(request, reply, 'session')}<input type="hidden" name="archived" value="${p.archived ? 'false' : 'true'}"><button type="submit" class="dash-small dash-plain">${p.archived ? 'Restore' : 'Archive'}</button></form></td></tr>`,
      )}</tbody></table></div>${total > rows.length ? html`<p class="muted">Showing ${OWNER_LIST_LIMIT} of ${total} products.</p>` : ''}`
    : html`<p class="dash-empty">No products yet. <a href="${storePath(store.id, '/products/new')}">Add your first product</a>, or import a CSV file below; shoppers then find them on your storefront.</p>`;
  const content = html`${opts.imported ? importReport(opts.imported) : ''}<p><a class="button" href="${storePath(store.id, '/products/new')}">Add a product</a></p>${table}${importForm(request, reply)}`;
  return sendStorePage(request, reply, 'products', 'Products', content, {
    status: opts.status ?? 200,
    notice: opts.notice ?? null,
    error: opts.error ?? null,
  });
}

/** Products: the list (archived included), add, edit, archive and restore, and a CSV import through the same import code as `admin product import`. */
export async function productPages(app: FastifyInstance) {
  const notFound = (reply: FastifyReply, storeId: string) =>
    sendMessage(reply, 404, 'Not found', 'This store has no such product.', {
      href: storePath(storeId, '/products'),
      text: 'Back to the products',
    });
  const editPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    row: ProductRow,
    values: Record<string, string>,
    opts: { status?: number; errors?: FieldErrors; notice?: string | null } = {},
  ) => {
    const store = request.ownedStore!;
    const extra = row.variants.length
      ? html`<p class="muted">This product has ${row.variants.length} variants with their own prices and stock; they are kept as they are.</p>`
      : html``;
    return sendStorePage(
      request,
      reply,
      'products',
      `Edit ${row.name}`,
      html`<p>Status: <span class="dash-status">${row.archived ? 'Archived' : 'Live'}</span></p>${extra}${productForm(request, reply, storePath(store.id, `/products/${row.id}`), values, opts.errors, 'Save the product')}`,
      { status: opts.status ?? 200, notice: opts.notice ?? null, error: opts.errors ? problemsSummary(opts.errors) : null },
    );
  };

  app.get<Params>('/stores/:storeId/products', async (request, reply) =>
    listPage(request, reply, { notice: NOTICES[request.query.done ?? ''] ?? null }),
  );

  app.get<Params>('/stores/:storeId/products/new', async (request, reply) =>
    sendStorePage(
      request,
      reply,
      'products',
      'Add a product',
      productForm(request, reply, storePath(request.ownedStore!.id, '/products'), { type: 'physical' }),
    ),
  );

  app.post<Params>('/stores/:storeId/products', async (request, reply) => {
    const store = request.ownedStore!;
    const values = typed(formOf(request));
    const checked = productFromForm(values, null);
    if (!checked.ok)
      return sendStorePage(
        request,
        reply,
        'products',
        'Add a product',
        productForm(request, reply, storePath(store.id, '/products'), values, checked.errors),
        {
          status: 400,
          error: problemsSummary(checked.errors),
        },
      );
    await insertProducts(app.orm.em, store.id, [checked.product]);
    return reply.redirect(storePath(store.id, '/products?done=created'), 303);
  });

  app.post<Params>('/stores/:storeId/products/import', { config: { acceptsFile: true } }, async (request, reply) => {
    const store = request.ownedStore!;
    let items: Record<string, unknown>[];
    try {
      items = productsFromCsv(formOf(request).get('file') ?? '');
    } catch (err) {
      return listPage(request, reply, { status: 400, error: `Nothing imported: ${(err as Error).message}` });
    }
    if (!items.length)
      return listPage(request, reply, { status: 400, error: 'Nothing imported: the file has no product rows under its header line.' });
    // Line numbers as a spreadsheet shows them: the header is line 1.
    const imported = await importProducts(app.orm.em, store.id, items, { place: (i) => i + 2 });
    return listPage(request, reply, { imported });
  });

  app.get<Params>('/stores/:storeId/products/:productId', async (request, reply) => {
    const row = await findStoreProduct(app.orm.em, request.ownedStore!.id, request.params.productId);
    if (!row) return notFound(reply, request.ownedStore!.id);
    return editPage(request, reply, row, rowValues(row), { notice: NOTICES[request.query.done ?? ''] ?? null });
  });

  app.post<Params>('/stores/:storeId/products/:productId', async (request, reply) => {
    const store = request.ownedStore!;
    const row = await findStoreProduct(app.orm.em, store.id, request.params.productId);
    if (!row) return notFound(reply, store.id);
    const values = typed(formOf(request));
    const checked = productFromForm(values, row);
    if (!checked.ok) return editPage(request, reply, row, values, { status: 400, errors: checked.errors });
    await updateProduct(app.orm.em, store.id, row.id, checked.product);
    return reply.redirect(storePath(store.id, `/products/${row.id}?done=saved`), 303);
  });

  app.post<Params>('/stores/:storeId/products/:productId/archive', async (request, reply) => {
    const store = request.ownedStore!;
    const archived = formOf(request).get('archived') !== 'false';
    if (!(await setProductArchived(app.orm.em, store.id, request.params.productId, archived))) return notFound(reply, store.id);
    return reply.redirect(storePath(store.id, `/products?done=${archived ? 'archived' : 'restored'}`), 303);
  });
}
