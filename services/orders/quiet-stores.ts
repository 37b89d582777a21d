/**
 * The stores whose last order write in this process found nothing an order event can be sent to (no live
 * webhook endpoint, no push device, no chat messages: STORE_SENDS in services/orders/events.ts). Their next
 * write runs the quiet statement, a third of the full one's plan. That statement checks the same facts in its
 * own snapshot and writes nothing when one of them holds by then, so this memory may be stale but never
 * wrong: a stale entry costs one statement more, once. Most stores of a hosted service are quiet ones.
 */
const quiet = new Set<string>();

/** Bounds the memory (about 100 bytes a store): past it, the stores noted first are forgotten first. */
const LIMIT = 20_000;

/** True when this store's last order write found it quiet. */
export const isQuietStore = (storeId: string): boolean => quiet.has(storeId);

/** Notes what an order write found: whether the store has something to send to. */
export function noteStoreSends(storeId: string, sends: boolean): void {
  if (sends) {
    quiet.delete(storeId);
    return;
  }
  if (quiet.has(storeId)) return;
  if (quiet.size >= LIMIT) quiet.delete(quiet.values().next().value!);
  quiet.add(storeId);
}
