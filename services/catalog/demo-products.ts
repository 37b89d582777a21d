import { NewProduct } from './create.js';

/** A picture that needs no network: a coloured square with a word, as an SVG data URL. */
function picture(word: string, colour: string): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 200"><rect width="200" height="200" fill="${colour}"/><text x="100" y="112" font-family="sans-serif" font-size="28" text-anchor="middle" fill="#1d1d1f">${word}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/** The few products of the demo store `npm start` creates: stock, variants, free and standard delivery, a digital good. */
export const DEMO_PRODUCTS: NewProduct[] = [
  {
    name: 'Mint green tea, 250 g',
    description: 'Gunpowder green tea with dried mint leaves.\nBrew 3 minutes at 80 °C.',
    price: '6.50',
    category: 'Tea',
    stock: 120,
    image_url: picture('Mint tea', '#cfe8d5'),
  },
  {
    name: 'Ceramic teapot',
    description: 'Hand-painted teapot, 0.8 l.',
    price: '34.00',
    compare_at_price: '42.00',
    category: 'Teaware',
    delivery_fee: '8',
    image_url: picture('Teapot', '#f3d9c4'),
    variants: [
      { options: { Colour: 'Blue' }, price: '34.00', stock: 5, sku: 'POT-BLUE' },
      { options: { Colour: 'Green' }, price: '36.00', stock: 1, sku: 'POT-GREEN' },
    ],
  },
  {
    name: 'Tea glasses, set of 6',
    price: '18.00',
    category: 'Teaware',
    categories: ['Gifts'],
    delivery_fee: '0',
    stock: 12,
    image_url: picture('Glasses', '#dbe4f6'),
  },
  {
    name: 'Tea brewing guide (PDF)',
    price: '4.99',
    type: 'digital',
    category: 'Guides',
    image_url: picture('Guide', '#f6f0c9'),
  },
].map((p) => NewProduct.parse(p));
