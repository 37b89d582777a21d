import { randomBytes } from 'node:crypto';
import { STATE_TTL_MS, type Platform } from './protocol.js';

/**
 * Connect states the plugin issued: random, kept 15 minutes, usable once, and bound to the shop admin's session
 * that started the flow (the platform's own admin session id, e.g. the WordPress session token): a return that
 * arrives in another session (a link an attacker sends the admin, carrying the attacker's code) is refused.
 */
export class ConnectStates {
  private readonly states = new Map<string, { sessionId: string; expires: number }>();

  constructor(
    private readonly ttlMs = STATE_TTL_MS,
    private readonly now = () => Date.now(),
  ) {}

  /** A new 128-bit random state for this admin session, remembered for ttlMs. */
  issue(sessionId: string): string {
    if (!sessionId) throw new Error('a connect state needs the admin session it belongs to');
    const state = randomBytes(16).toString('hex');
    for (const [s, entry] of this.states) if (entry.expires < this.now()) this.states.delete(s);
    this.states.set(state, { sessionId, expires: this.now() + this.ttlMs });
    return state;
  }

  /** True once for a fresh state this plugin issued to this same admin session; the state is forgotten either way. */
  consume(state: string | null | undefined, sessionId: string | null | undefined): boolean {
    if (!state) return false;
    const entry = this.states.get(state);
    this.states.delete(state);
    return entry !== undefined && !!sessionId && entry.sessionId === sessionId && entry.expires >= this.now();
  }
}

/** The store a plugin is connected to, as the exchange names it. */
export interface ConnectedStore {
  id: string;
  name: string;
}

/**
 * Exchanges that would replace the credentials a plugin already holds, waiting for the admin to confirm the new
 * store's name (kept 15 minutes, bound to the admin session, usable once). A completed connect never replaces
 * existing credentials silently: a code an attacker got the admin to bring back would otherwise reroute the shop's
 * orders to the attacker's store.
 */
export class PendingConnects<T extends { store: ConnectedStore }> {
  private readonly pending = new Map<string, { sessionId: string; result: T; expires: number }>();

  constructor(
    private readonly ttlMs = STATE_TTL_MS,
    private readonly now = () => Date.now(),
  ) {}

  /** Keeps an exchange's result for the admin's confirmation; returns the token the confirmation must carry. */
  hold(sessionId: string, result: T): string {
    if (!sessionId) throw new Error('a pending connect needs the admin session it belongs to');
    const token = randomBytes(16).toString('hex');
    for (const [t, entry] of this.pending) if (entry.expires < this.now()) this.pending.delete(t);
    this.pending.set(token, { sessionId, result, expires: this.now() + this.ttlMs });
    return token;
  }

  /**
   * The held result once the same admin session confirms it by typing the new store's name exactly; the token is
   * used up whatever the answer, so a wrong name means connecting again.
   */
  confirm(token: string | null | undefined, sessionId: string | null | undefined, typedStoreName: string | null | undefined) {
    const entry = token ? this.pending.get(token) : undefined;
    if (token) this.pending.delete(token);
    if (!entry || !sessionId || entry.sessionId !== sessionId || entry.expires < this.now())
      return { ok: false as const, error: 'unknown or expired confirmation' };
    if ((typedStoreName ?? '').trim() !== entry.result.store.name)
      return { ok: false as const, error: "the store's name was not confirmed" };
    return { ok: true as const, result: entry.result };
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

/**
 * Steps 3-4: the browser came back; a code is handed out only when the state is one of ours, fresh, and issued to
 * this same admin session (`sessionId`: the authenticated admin's session; undefined when none).
 */
export function readConnectReturn(query: URLSearchParams, states: ConnectStates, sessionId: string | null | undefined): ConnectReturn {
  // The state is checked (and used up) before anything else, so a forged return never reaches the exchange.
  if (!states.consume(query.get('state'), sessionId)) return { ok: false, error: 'unknown or expired state' };
  const code = query.get('svc_code');
  if (!code) return { ok: false, error: query.get('svc_error') ?? 'no code' };
  return { ok: true, code };
}
