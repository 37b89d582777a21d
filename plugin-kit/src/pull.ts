import type { ServiceClient } from './client.js';
import { PULL_INTERVAL_MS, type ApplyReport } from './protocol.js';

/** One pull: fetch waiting updates, apply them (at most once each), acknowledge them all; returns how many came. */
export async function pullOnce(client: ServiceClient, apply: (updates: unknown[]) => Promise<ApplyReport>): Promise<number> {
  const { status, body } = await client.pullUpdates();
  if (status !== 200 || !body) return 0;
  const report = await apply(body.updates);
  if (report.applied.length + report.failed.length) await client.ack(report.applied, report.failed);
  return body.updates.length;
}

/** Pulls every intervalMs (15 minutes by default) until the returned stop() is called; errors wait for the next round. */
export function startPulling(pull: () => Promise<unknown>, intervalMs = PULL_INTERVAL_MS): () => void {
  const timer = setInterval(() => void pull().catch(() => undefined), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
