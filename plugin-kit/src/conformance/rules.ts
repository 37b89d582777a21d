import { CONNECT_RULES } from './connect-rules.js';
import { Context, type ConformanceOptions, type Rule, type RuleResult } from './context.js';
import { PUSH_RULES } from './push-rules.js';

export type { ConformanceOptions, Outcome, RuleResult } from './context.js';

/** The protocol's rules, in the order they are checked and reported. */
export const RULES: Rule[] = [
  ...PUSH_RULES,
  ...CONNECT_RULES,
  {
    rule: 'pull.every-15-minutes',
    title: 'the plugin pulls GET /connection/updates every 15 minutes and acknowledges with POST /connection/updates/ack',
    notCheckable: () => 'the plugin calls the service, not this check; see plugin-kit pullOnce/startPulling',
  },
  {
    rule: 'heartbeat',
    title: 'the plugin sends PUT /connection with its versions, site_url and push_url, and pauses on 409',
    notCheckable: () => 'the plugin calls the service, not this check',
  },
  {
    rule: 'no-echo',
    title: 'an applied update is not sent back to the service as a new order change',
    notCheckable: () => 'the echo would go to the service, not to this check',
  },
];

/** Runs every rule against the plugin under test, one after the other; a rule's crash fails that rule only. */
export async function runConformance(opts: ConformanceOptions): Promise<RuleResult[]> {
  const ctx = new Context(opts);
  const results: RuleResult[] = [];
  for (const r of RULES) {
    const skip = r.notCheckable?.(opts) ?? (r.check ? null : 'not checkable');
    if (skip !== null || !r.check) {
      results.push({ rule: r.rule, title: r.title, outcome: 'not checkable', reason: skip ?? '' });
      continue;
    }
    const why = await r.check(ctx).catch((err: Error) => `the check itself failed: ${err.message}`);
    results.push({ rule: r.rule, title: r.title, outcome: why === null ? 'pass' : 'fail', reason: why ?? 'ok' });
  }
  return results;
}
