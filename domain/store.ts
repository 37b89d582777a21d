export const STORE_MODES = ['full', 'tracking_only'] as const;
export const STORE_PLANS = ['free', 'paid'] as const;
export type StoreMode = (typeof STORE_MODES)[number];
export type StorePlan = (typeof STORE_PLANS)[number];

/** Connected shops a store may have, by plan (spec Limits). */
export const CONNECTED_SHOPS_PER_PLAN: Record<StorePlan, number> = { free: 1, paid: 5 };

/** A URL-safe slug from a store name; uniqueness is the caller's business. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
  return slug || 'store';
}
