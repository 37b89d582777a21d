/** A small seeded PRNG (mulberry32): both sides of a round get the same sequence of new and repeated ids. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An order input as a plugin sends it: prepaid, a customer with an address, `items` line items. */
export function orderInput(externalId: string, items: number, note: string | null) {
  const lines = Array.from({ length: items }, (_, i) => ({
    external_product_id: `p-${i + 1}`,
    name: `Product ${i + 1}`,
    sku: `SKU-${1000 + i}`,
    variant: i % 2 ? 'Size M' : 'Blue',
    image_url: `https://cdn.example/p/${i + 1}.jpg`,
    quantity: 1 + (i % 3),
    unit_price: (999 + 100 * i) / 100,
  }));
  const subtotal = lines.reduce((sum, l) => sum + l.quantity * Math.round(l.unit_price * 100), 0) / 100;
  return {
    external_id: externalId,
    number: externalId,
    status: 'confirmed',
    currency: 'USD',
    totals: { total: Math.round((subtotal + 5) * 100) / 100, shipping: 5, discount: 0 },
    payment: { status: 'paid', method: 'card', method_title: 'Credit card', is_cod: false, transaction_id: `tx-${externalId}` },
    customer: {
      name: 'Jane Doe',
      email: 'jane.doe@mail.example',
      phone: '+1 202 555 0142',
      address_line1: '12 Main Street',
      city: 'Springfield',
      postcode: '12345',
      country: 'US',
    },
    items: lines,
    note,
  };
}

/**
 * Bodies for POST /orders: a share `repeatShare` re-sends an external id already sent in this stream
 * with a changed note (a real update: a write and an order.updated event), the rest are new ids.
 */
export function orderBodies(opts: { items: number; idPrefix: string; repeatShare: number; seed: number }): () => string {
  const random = seededRandom(opts.seed);
  const sent: string[] = [];
  let updates = 0;
  return () => {
    if (sent.length > 0 && random() < opts.repeatShare) {
      const id = sent[Math.floor(random() * sent.length)]!;
      return JSON.stringify(orderInput(id, opts.items, `update ${++updates}`));
    }
    const id = `${opts.idPrefix}-${sent.length + 1}`;
    sent.push(id);
    return JSON.stringify(orderInput(id, opts.items, null));
  };
}
