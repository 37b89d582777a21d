import type { ApplyReport, Update } from './protocol.js';

/**
 * Where a plugin remembers which update ids it applied: a table beside the shop's orders in production (so both
 * survive a restart), a `Set<string>` in a test.
 */
export interface AppliedLedger {
  has(updateId: string): boolean | Promise<boolean>;
  /** Remembers an applied id; what it returns is ignored (so a Set serves as an in-memory ledger). */
  add(updateId: string): unknown;
}

/** What the shop does with one update; throw to report it failed (for instance, no such order here). */
export type ApplyOne = (update: Update) => void | Promise<void>;

/**
 * Applies each update at most once and reports every id: an id already in the ledger is reported applied
 * again without touching the shop (the service resends when a reply was lost), a thrown error puts the
 * id in `failed`, and an entry that is not an update with an id and external_id fails on its own.
 */
export async function applyUpdates(updates: readonly unknown[], ledger: AppliedLedger, applyOne: ApplyOne): Promise<ApplyReport> {
  const report: ApplyReport = { applied: [], failed: [] };
  for (const entry of updates) {
    const id = isObject(entry) && typeof entry.id === 'string' ? entry.id : null;
    if (id === null) continue; // Nothing to name in the reply; the service never sends such an entry.
    if (!isObject(entry) || typeof entry.external_id !== 'string') {
      report.failed.push({ id, error: 'not an update (external_id missing)' });
      continue;
    }
    try {
      if (!(await ledger.has(id))) {
        await applyOne(entry as unknown as Update);
        await ledger.add(id);
      }
      report.applied.push(id);
    } catch (err) {
      report.failed.push({ id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return report;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
