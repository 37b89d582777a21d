import { randomBytes } from 'node:crypto';
import { STATE_TTL_MS, type Platform } from './protocol.js';

/** Connect states the plugin issued: random, kept 15 minutes, usable once. */
export class ConnectStates {
  private readonly states = new Map<string, number>();

  constructor(
    private readonly ttlMs = STATE_TTL_MS,
    private readonly now = () => Date.now(),
  ) {}

  /** A new 128-bit random state, remembered for ttlMs. */
  issue(): string {
    const state = randomBytes(16).toString('hex');
    for (const [s, expires] of this.states) if (expires < this.now()) this.states.delete(s);
    this.states.set(state, this.now() + this.ttlMs);
    return state;
  }

  /** True once for a state this plugin issued and that has not expired; it is forgotten either way. */
  consume(state: string | null | undefined): boolean {
    if (!state) return false;
    const expires = this.states.get(state);
    this.states.delete(state);
    return expires !== undefined && expires >= this.now();
  }
}

export interface ConnectUrlInput {
  /** The service's public origin (PUBLIC_URL), e.g. https://service.example. */
  serviceUrl: string;
  platform: Platform;
  /** The shop's home address. */
  siteUrl: string;
  /** The admin page the browser comes back to: on the same host as siteUrl. */
  returnUrl: string;
  state: string;
  name: string;
  currency: string;
  pluginVersion: string;
}

/** Step 1: the service's connect page for this shop; throws when return_url is on another host than site_url. */
export function connectUrl(input: ConnectUrlInput): string {
  if (new URL(input.returnUrl).host !== new URL(input.siteUrl).host) throw new Error('return_url must be on the same host as site_url');
  const query = new URLSearchParams({
    site_url: input.siteUrl,
    return_url: input.returnUrl,
    state: input.state,
    name: input.name,
    currency: input.currency,
    v: input.pluginVersion,
  });
  return `${input.serviceUrl.replace(/\/$/, '')}/connect/${input.platform}?${query}`;
}

export type ConnectReturn = { ok: true; code: string } | { ok: false; error: string };

/** Steps 3-4: the browser came back; a code is handed out only when the state is one of ours and fresh. */
export function readConnectReturn(query: URLSearchParams, states: ConnectStates): ConnectReturn {
  // The state is checked (and used up) before anything else, so a forged return never reaches the exchange.
  if (!states.consume(query.get('state'))) return { ok: false, error: 'unknown or expired state' };
  const code = query.get('svc_code');
  if (!code) return { ok: false, error: query.get('svc_error') ?? 'no code' };
  return { ok: true, code };
}
