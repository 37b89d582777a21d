import { PUSH_REPLY_TIMEOUT_MS } from '../protocol.js';
import { signPush } from '../signature.js';
import { probe, readReply, sampleUpdate, type Answer } from './probe.js';
import type { ServiceStandIn } from './service-stand-in.js';

export interface ConformanceOptions {
  /** The push URL of the plugin under test. */
  pushUrl: string;
  /** The webhook_secret the plugin under test was configured with. */
  secret: string;
  /** The plugin's connect return URL, when it exposes one. */
  returnUrl?: string;
  /** The plugin's URL that starts the connect flow (redirects to the service's connect page), when it exposes one. */
  connectUrl?: string;
  /** An order the shop under test has (updates for it must apply); the checks change its status and tracking. */
  externalId: string;
  timeoutMs?: number;
  /** The plugin's service URL points here: then a connect return must also never reach the exchange. */
  standIn?: ServiceStandIn;
  /**
   * Headers that sign the check in as a shop admin on the plugin's connect start and return pages (a session
   * cookie, an Authorization header): those pages belong to a signed-in admin, and the state to that session.
   */
  auth?: Record<string, string>;
}

export type Outcome = 'pass' | 'fail' | 'not checkable';
export interface RuleResult {
  rule: string;
  title: string;
  outcome: Outcome;
  reason: string;
}

export interface Rule {
  rule: string;
  title: string;
  /** Resolves to null on pass, else to why it failed. */
  check?: (ctx: Context) => Promise<string | null>;
  /** Why the rule cannot be checked with these options (or at all), else null. */
  notCheckable?: (opts: ConformanceOptions) => string | null;
}

/** What a rule's check works with: the options and the requests it sends as the service. */
export class Context {
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
  /** GETs the plugin's connect return URL with this query, as the signed-in admin (or with no session: `signedIn` false). */
  returnProbe = (query: Record<string, string>, signedIn = true) =>
    probe(
      `${this.opts.returnUrl}${this.opts.returnUrl!.includes('?') ? '&' : '?'}${new URLSearchParams(query)}`,
      { method: 'GET', headers: signedIn ? (this.opts.auth ?? {}) : {} },
      this.opts.timeoutMs ?? PUSH_REPLY_TIMEOUT_MS,
    );
  /** GETs the plugin's connect start URL, which redirects the browser to the service's connect page. */
  startConnect = (signedIn = true) =>
    probe(
      this.opts.connectUrl!,
      { method: 'GET', headers: signedIn ? (this.opts.auth ?? {}) : {} },
      this.opts.timeoutMs ?? PUSH_REPLY_TIMEOUT_MS,
    );
}
