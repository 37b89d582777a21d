import { randomBytes } from 'node:crypto';
import { PUSH_REPLY_TIMEOUT_MS, SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../protocol.js';
import { signPush } from '../signature.js';
import { notRefused, probe, readReply, sampleUpdate, type Answer } from './probe.js';
import type { ServiceStandIn } from './service-stand-in.js';

export interface ConformanceOptions {
  /** The push URL of the plugin under test. */
  pushUrl: string;
  /** The webhook_secret the plugin under test was configured with. */
  secret: string;
  /** The plugin's connect return URL, when it exposes one. */
  returnUrl?: string;
  /** An order the shop under test has (updates for it must apply); the checks change its status and tracking. */
  externalId: string;
  timeoutMs?: number;
  /** The plugin's service URL points here: then a connect return must also never reach the exchange. */
  standIn?: ServiceStandIn;
}

export type Outcome = 'pass' | 'fail' | 'not checkable';
export interface RuleResult {
  rule: string;
  title: string;
  outcome: Outcome;
  reason: string;
}

interface Rule {
  rule: string;
  title: string;
  /** Returns null on pass, else why it failed; or {notCheckable} with why. */
  check?: (ctx: Context) => Promise<string | null>;
  notCheckable?: (opts: ConformanceOptions) => string | null;
}

class Context {
  constructor(readonly opts: ConformanceOptions) {}
  now = () => Math.floor(Date.now() / 1000);
  update = (comment: string) => sampleUpdate(this.opts.externalId, comment);
  /** POSTs a body to the push URL with these headers. */
  send = (body: string, headers: Record<string, string>): Promise<Answer> =>
    probe(this.opts.pushUrl, { method: 'POST', headers, body }, this.opts.timeoutMs ?? PUSH_REPLY_TIMEOUT_MS);
  /** POSTs {updates} signed with the right secret at now + offsetSeconds. */
  push = (updates: unknown[], offsetSeconds = 0) => {
    const body = JSON.stringify({ updates });
    return this.send(body, signPush(this.opts.secret, body, this.now() + offsetSeconds));
  };
  /** Passes when the reply names `id` as applied and not failed. */
  appliedOnly = (answer: Answer, id: string, repeat = false): string | null => {
    const reply = readReply(answer);
    if ('bad' in reply) return reply.bad;
    const failed = reply.failed.find((f) => f.id === id);
    if (failed && repeat)
      return `reported failed (${failed.error}): the service pushes again when a reply was lost, so a repeat must be answered applied, changing nothing`;
    if (failed)
      return `reported failed (${failed.error}); does the shop under test have an order with external_id ${this.opts.externalId}? (--external-id)`;
    if (!reply.applied.includes(id)) return `the reply does not name the update in applied: ${answer.text.slice(0, 120)}`;
    return null;
  };
  returnProbe = (query: Record<string, string>) =>
    probe(
      `${this.opts.returnUrl}${this.opts.returnUrl!.includes('?') ? '&' : '?'}${new URLSearchParams(query)}`,
      { method: 'GET' },
      this.opts.timeoutMs ?? PUSH_REPLY_TIMEOUT_MS,
    );
}

const refused = (answer: Promise<Answer>) => answer.then((a) => notRefused(a));
/** A forged connect return is refused with a 4xx and, when the stand-in service watches, never exchanged. */
const returnRefused = async (c: Context, query: Record<string, string>) => {
  const why = notRefused(await c.returnProbe(query), 'a 5xx suggests the plugin went on to exchange the code, or crashed');
  if (why) return why;
  if (c.opts.standIn?.exchanges.includes(query.svc_code!))
    return 'refused, but only after POST /connect/exchange with the code: check the state first';
  return null;
};
const code = () => randomBytes(32).toString('base64url');
const noReturnUrl = (o: ConformanceOptions) => (o.returnUrl ? null : 'no --return-url given');

/** The protocol's rules, in the order they are checked and reported. */
export const RULES: Rule[] = [
  {
    rule: 'push.valid',
    title: 'a signed, fresh push is applied and answered {applied: [id], failed: []} within 8 s',
    check: async (c) => {
      const u = c.update('conformance: valid push');
      return c.appliedOnly(await c.push([u]), u.id);
    },
  },
  {
    rule: 'push.duplicate',
    title: 'the same update pushed again is answered applied again (applying twice changes nothing)',
    check: async (c) => {
      const u = c.update('conformance: duplicate push');
      const first = c.appliedOnly(await c.push([u]), u.id);
      if (first) return `the first push was not applied: ${first}`;
      const second = c.appliedOnly(await c.push([u]), u.id, true);
      return second && `the second push of the same update: ${second}`;
    },
  },
  {
    rule: 'push.failed-reported',
    title: 'an update the shop cannot apply is reported in failed with an error, and the rest of the batch is applied',
    check: async (c) => {
      const good = c.update('conformance: batch, applies');
      const bad = { ...c.update('conformance: batch, unknown order'), external_id: `conformance-unknown-${code().slice(0, 12)}` };
      const answer = await c.push([good, bad]);
      const reply = readReply(answer);
      if ('bad' in reply) return reply.bad;
      if (!reply.failed.some((f) => f.id === bad.id && f.error.length > 0))
        return `the update for an unknown order is not in failed with an error: ${answer.text.slice(0, 160)}`;
      if (reply.applied.includes(bad.id)) return 'the update for an unknown order is reported applied';
      return c.appliedOnly(answer, good.id);
    },
  },
  {
    rule: 'push.window-inside',
    title: 'a push signed 4 minutes ago is accepted (inside the 5-minute window)',
    check: async (c) => {
      const u = c.update('conformance: 4 minutes old');
      return c.appliedOnly(await c.push([u], -240), u.id);
    },
  },
  {
    rule: 'push.stale-refused',
    title: 'a push replayed 10 minutes after it was signed is refused (outside the 5-minute window)',
    check: (c) => refused(c.push([c.update('conformance: stale')], -600)),
  },
  {
    rule: 'push.future-refused',
    title: 'a push timestamped 10 minutes ahead is refused',
    check: (c) => refused(c.push([c.update('conformance: from the future')], 600)),
  },
  {
    rule: 'push.retimed-refused',
    title: 'an old push re-sent with a fresh timestamp and its old signature is refused (the timestamp is signed)',
    check: (c) => {
      const body = JSON.stringify({ updates: [c.update('conformance: retimed replay')] });
      const old = signPush(c.opts.secret, body, c.now() - 600);
      return refused(c.send(body, { ...old, [TIMESTAMP_HEADER]: String(c.now()) }));
    },
  },
  {
    rule: 'push.forged-refused',
    title: 'a push signed with another secret is refused',
    check: (c) => {
      const body = JSON.stringify({ updates: [c.update('conformance: forged')] });
      return refused(c.send(body, signPush(`${c.opts.secret}-not`, body, c.now())));
    },
  },
  {
    rule: 'push.tampered-refused',
    title: 'a push whose body changed after it was signed is refused',
    check: (c) => {
      const u = c.update('conformance: tampered');
      const headers = signPush(c.opts.secret, JSON.stringify({ updates: [u] }), c.now());
      return refused(c.send(JSON.stringify({ updates: [{ ...u, tracking: { ...u.tracking, number: 'TAMPERED' } }] }), headers));
    },
  },
  {
    rule: 'push.unsigned-refused',
    title: 'a push without X-Service-Signature is refused',
    check: (c) => {
      const body = JSON.stringify({ updates: [c.update('conformance: unsigned')] });
      const { [SIGNATURE_HEADER]: _gone, ...headers } = signPush(c.opts.secret, body, c.now());
      return refused(c.send(body, headers));
    },
  },
  {
    rule: 'push.untimed-refused',
    title: 'a push without X-Service-Timestamp is refused',
    check: (c) => {
      const body = JSON.stringify({ updates: [c.update('conformance: no timestamp')] });
      const { [TIMESTAMP_HEADER]: _gone, ...headers } = signPush(c.opts.secret, body, c.now());
      return refused(c.send(body, headers));
    },
  },
  {
    rule: 'push.malformed-refused',
    title: 'a signed body that is not {updates: [...]} is refused with a 4xx (not applied, not a crash)',
    check: async (c) => {
      for (const body of ['{"updates":', '{"orders":[]}']) {
        const why = notRefused(await c.send(body, signPush(c.opts.secret, body, c.now())));
        if (why) return `${JSON.stringify(body)}: ${why}`;
      }
      return null;
    },
  },
  {
    rule: 'push.constant-time',
    title: 'signatures are compared in constant time',
    notCheckable: () =>
      'a byte compare differs by nanoseconds and network jitter is milliseconds; use crypto.timingSafeEqual (plugin-kit verifyPush does)',
  },
  {
    rule: 'connect.unknown-state-refused',
    title: 'a connect return with a state the plugin never issued is refused with a 4xx (before any exchange)',
    notCheckable: noReturnUrl,
    check: (c) => returnRefused(c, { svc_code: code(), state: randomBytes(16).toString('hex') }),
  },
  {
    rule: 'connect.missing-state-refused',
    title: 'a connect return without a state is refused with a 4xx',
    notCheckable: noReturnUrl,
    check: (c) => returnRefused(c, { svc_code: code() }),
  },
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
