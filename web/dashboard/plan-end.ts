import type { OwnedStore } from '../../services/accounts/stores.js';

const minute = (date: Date) => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** The plan's end in words: "until …" or "with no end date" for a paid plan, "the paid plan ended …" once one has; null for a free store that never had one. */
export function planEndWords(store: Pick<OwnedStore, 'plan' | 'paid_until'>, now = Date.now()): string | null {
  if (store.plan === 'paid') return store.paid_until ? `until ${minute(store.paid_until)}` : 'with no end date';
  return store.paid_until && store.paid_until.getTime() <= now ? `the paid plan ended ${minute(store.paid_until)}` : null;
}
