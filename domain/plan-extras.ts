import type { StorePlan } from './store.js';

/**
 * True when the store may send chat order messages to its shoppers (spec Limits: paid plans only).
 * The one place that rule lives: the settings page and the sending activity both ask it.
 */
export function chatMessagesAllowed(store: { plan: StorePlan }): boolean {
  return store.plan === 'paid';
}
