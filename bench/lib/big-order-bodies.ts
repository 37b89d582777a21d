import { orderInput, seededRandom } from './order-bodies.js';

/** Text of exactly `length` characters that differs per line (a catalogue with long names and descriptions). */
function filler(label: string, length: number): string {
  const unit = `${label} · `;
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** One line item with every text field at (or near) its limit in OrderItemInput. */
function longItem(i: number) {
  return {
    external_product_id: `p-${i}-${'x'.repeat(240)}`,
    name: filler(`Crème brûlée gift box no. ${i}`, 500),
    sku: `SKU-${i}-${'0'.repeat(240)}`,
    variant: filler(`Size ${i % 5}, colour ${i % 7}`, 500),
    image_url: `https://cdn.example/p/${i}/${'a'.repeat(1960)}.jpg`,
    quantity: 1 + (i % 3),
    unit_price: (999 + 100 * i) / 100,
  };
}

/**
 * POST /orders bodies as large as the API accepts (`maxBytes`, its bodyLimit less a margin): an order
 * with as many long line items as fit (the API keeps 200 of them) and a long note. A share `repeatShare`
 * re-sends an id already sent with another note: an update, hence an order.updated event as big.
 */
export function bigOrderBodies(opts: { maxBytes: number; idPrefix: string; repeatShare: number; seed: number }): () => string {
  const random = seededRandom(opts.seed);
  const sent: string[] = [];
  let updates = 0;
  const build = (id: string, note: string) => {
    const order = orderInput(id, 0, filler(note, 9_000));
    const base = Buffer.byteLength(JSON.stringify(order));
    const perItem = Buffer.byteLength(JSON.stringify(longItem(100))) + 1;
    const count = Math.floor((opts.maxBytes - base) / perItem) - 1;
    return JSON.stringify({ ...order, items: Array.from({ length: count }, (_, i) => longItem(i + 1)) });
  };
  return () => {
    if (sent.length > 0 && random() < opts.repeatShare) {
      const id = sent[Math.floor(random() * sent.length)]!;
      return build(id, `update ${++updates}`);
    }
    const id = `${opts.idPrefix}-${sent.length + 1}`;
    sent.push(id);
    return build(id, 'Please gift wrap each box separately');
  };
}
