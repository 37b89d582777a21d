import { readFile } from 'node:fs/promises';
import { z } from '../../../contract/zod.js';
import { insertProducts, NewProduct } from '../../../services/catalog/create.js';
import { IMPORT_CHUNK, importProducts, issueText } from '../../../services/catalog/import.js';
import { presentProduct } from '../../../services/catalog/product-row.js';
import { findStore } from '../../../services/catalog/read.js';
import { idOption } from '../args.js';
import { defineCommand, fields } from '../command.js';
import { CommandError, UsageError } from '../errors.js';

const OPTION_OF: Record<string, string> = { compare_at_price: 'compare-at', delivery_fee: 'delivery-fee', image_url: 'image-url' };
const asOption = (field: string) => `--${OPTION_OF[field] ?? field}`;

async function storeOrFail(em: Parameters<typeof findStore>[0], id: string) {
  const store = await findStore(em, { id });
  if (!store) throw new CommandError(`no store ${id}`);
  return store;
}

const productCreate = defineCommand({
  name: 'product create',
  usage:
    '--store ID --name N --price P [--category C] [--stock N] [--delivery-fee F] [--compare-at P] [--type physical|digital|service] [--description D] [--image-url URL] [--sku S] [--archived]',
  summary:
    "Adds a product to a store's catalogue. Without --stock the stock is unlimited; without --delivery-fee the store's standard fee applies.",
  options: {
    store: 'string',
    name: 'string',
    price: 'string',
    category: 'string',
    stock: 'string',
    'delivery-fee': 'string',
    'compare-at': 'string',
    type: 'string',
    description: 'string',
    'image-url': 'string',
    sku: 'string',
    archived: 'boolean',
  },
  input: z.object({
    store: idOption('store'),
    name: z.string(),
    price: z.string(),
    category: z.string().optional(),
    stock: z.string().regex(/^\d+$/, 'must be a whole number of 0 or more').transform(Number).optional(),
    'delivery-fee': z.string().optional(),
    'compare-at': z.string().optional(),
    type: z.string().optional(),
    description: z.string().optional(),
    'image-url': z.string().optional(),
    sku: z.string().optional(),
    archived: z.boolean().optional(),
  }),
  async run({ config, em }, input) {
    const parsed = NewProduct.safeParse({
      name: input.name,
      price: input.price,
      category: input.category,
      stock: input.stock,
      delivery_fee: input['delivery-fee'],
      compare_at_price: input['compare-at'],
      type: input.type,
      description: input.description,
      image_url: input['image-url'],
      sku: input.sku,
      archived: input.archived,
    });
    if (!parsed.success) throw new UsageError(issueText(parsed.error.issues, asOption));
    const store = await storeOrFail(em, input.store);
    const [row] = await insertProducts(em, store.id, [parsed.data]);
    const product = presentProduct(row!, store, config.publicUrl);
    const { id, name, price, currency, stock, delivery_fee, category, url } = product;
    return {
      json: { product },
      text: `Product created.\n${fields({ id, name, price: `${price} ${currency}`, stock: stock ?? 'unlimited', delivery_fee: delivery_fee ?? 'store standard', category, archived: row!.archived, url }, '  ')}`,
    };
  },
});

const productImport = defineCommand({
  name: 'product import',
  usage: '--store ID --file products.json',
  summary: `Adds many products from a JSON array (fields as in docs/catalogue-and-checkout.md); bad entries are listed, the rest imported. Progress on stderr every ${IMPORT_CHUNK}.`,
  options: { store: 'string', file: 'string' },
  input: z.object({ store: idOption('store'), file: z.string().min(1) }),
  async run({ config, em }, input) {
    const store = await storeOrFail(em, input.store);
    let items: unknown;
    try {
      items = JSON.parse(await readFile(input.file, 'utf8'));
    } catch (err) {
      throw new CommandError(`cannot read ${input.file} as JSON: ${(err as Error).message}`);
    }
    if (!Array.isArray(items)) throw new CommandError(`${input.file} must hold a JSON array of products`);
    // Progress goes to stderr after every chunk of IMPORT_CHUNK products (and at the end).
    const { imported, failed } = await importProducts(em, store.id, items, {
      onProgress: (done, r) =>
        process.stderr.write(
          `${done === items.length ? 'done' : 'progress'}: ${done}/${items.length} read, ${r.imported} imported, ${r.failed.length} failed\n`,
        ),
    });
    if (items.length === 0) process.stderr.write('done: 0/0 read, 0 imported, 0 failed\n');
    const text = [
      `Imported ${imported} of ${items.length} products into ${store.name} (${config.publicUrl}/s/${store.slug}).`,
      ...failed.map((f) => `  #${f.index}${f.name ? ` ${f.name}` : ''}: ${f.error}`),
    ];
    return { json: { imported, failed }, text: text.join('\n') };
  },
});

export const productCommands = [productCreate, productImport];
