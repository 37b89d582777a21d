// Catalogue rules: product types, variants, stock. Pure: no framework, no I/O.

/** The product types and what each means (docs/catalogue-and-checkout.md prints the same table). */
export const PRODUCT_TYPE_MEANINGS = {
  physical: 'A good that is shipped to the shopper; its stock is counted and a delivery fee applies.',
  digital: 'Delivered electronically (a file, a licence key, an access); no parcel, so it is created with a delivery fee of 0.',
  service: 'Work done for the shopper (a fitting, a repair, a booking); no parcel, so it is created with a delivery fee of 0.',
} as const;
export type ProductType = keyof typeof PRODUCT_TYPE_MEANINGS;
export const PRODUCT_TYPES = Object.keys(PRODUCT_TYPE_MEANINGS) as [ProductType, ...ProductType[]];

/** A variant's options: option name → value, e.g. {Size: 'M', Color: 'Red'}. */
export type VariantOptions = Record<string, string>;

/** A variant with its price in money units (10^-4); stock null means unlimited. */
export interface Variant {
  options: VariantOptions;
  price: bigint;
  stock: number | null;
  sku: string | null;
}

/** What stock and availability are decided on. */
export interface Stocked {
  stock: number | null;
  variants: readonly { stock: number | null }[];
}

/** True when both option sets name the same options with the same values (order does not matter). */
export function sameOptions(a: VariantOptions, b: VariantOptions): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && b[k] === a[k]);
}

/** The index of the one variant whose options are exactly these, or -1. */
export function findVariant(variants: readonly { options: VariantOptions }[], options: VariantOptions): number {
  return variants.findIndex((v) => sameOptions(v.options, options));
}

/** The index of the first option set that appears twice, or -1 (a product's variants must differ). */
export function duplicateVariant(variants: readonly { options: VariantOptions }[]): number {
  return variants.findIndex((v, i) => variants.slice(0, i).some((w) => sameOptions(v.options, w.options)));
}

/** In stock: without variants, stock null (unlimited) or above 0; with variants, any variant so. */
export function isInStock(product: Stocked): boolean {
  const available = (stock: number | null) => stock === null || stock > 0;
  return product.variants.length > 0 ? product.variants.some((v) => available(v.stock)) : available(product.stock);
}

/** The stock a product shows: its own, or with variants their sum (null when any variant is unlimited). */
export function shownStock(product: Stocked): number | null {
  if (product.variants.length === 0) return product.stock;
  if (product.variants.some((v) => v.stock === null)) return null;
  return product.variants.reduce((sum, v) => sum + (v.stock ?? 0), 0);
}

/** A variant as a line label: "Size: M, Color: Red". */
export function describeOptions(options: VariantOptions): string {
  return Object.entries(options)
    .map(([name, value]) => `${name}: ${value}`)
    .join(', ');
}
