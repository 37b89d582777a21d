import { createServer, type Server } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import {
  applyUpdates,
  ConnectStates,
  connectUrl,
  PendingConnects,
  handlePush,
  readConnectReturn,
  readRawBody,
  pullOnce,
  ServiceClient,
  startPulling,
  type ConnectedStore,
  type ExchangeResult,
  type IncomingHeaders,
  type Platform,
  type PushReply,
} from '@store-commerce/plugin-kit';
import type { InMemoryShop } from './shop.js';

export interface PluginOptions {
  /** The service's public origin (PUBLIC_URL). */
  serviceUrl: string;
  platform: Platform;
  siteUrl: string;
  shop: InMemoryShop;
  pluginVersion?: string;
  pullIntervalMs?: number;
}

/**
 * The receiver's paths: the push_url sent in the heartbeat, the admin button that starts connecting, the page it
 * returns to, and where the admin confirms replacing an existing connection. All but the push URL are admin pages.
 */
export const PUSH_PATH = '/service-push';
export const START_PATH = '/connect-start';
export const RETURN_PATH = '/connect-return';
export const CONFIRM_PATH = '/connect-confirm';
/** The shop admin's session cookie (a platform's own, e.g. WordPress's logged-in cookie). */
export const ADMIN_COOKIE = 'shop_admin';

export type ConnectResult =
  | { ok: true; connected: ConnectedStore }
  | { ok: true; confirm: { token: string; store: ConnectedStore; current: ConnectedStore | null } }
  | { ok: false; error: string };

/**
 * A reference plugin, as a platform_a or platform_b plugin author would write it with plugin-kit: the
 * connect flow with a state kept 15 minutes, the exchange, the heartbeat, a push receiver that verifies
 * and applies updates once, and a pull every 15 minutes as a fallback.
 */
export class ReferencePlugin {
  readonly client: ServiceClient;
  private readonly states = new ConnectStates();
  private readonly pending = new PendingConnects<ExchangeResult>();
  /** The shop's admin sessions (token → session id); a real plugin asks its platform who is signed in. */
  private readonly adminSessions = new Map<string, string>();
  private secret: string | undefined;
  /** The store the credentials belong to, when they came from a connect (null when pasted by hand). */
  connectedStore: ConnectedStore | null = null;
  private server: Server | undefined;
  private stopPulling: (() => void) | undefined;
  /** Pushes received, for whoever wants to watch (tests). */
  readonly pushes: { verified: boolean; reason?: string; updates: number }[] = [];
  /** Answer pushes with this status instead (to play a shop that is down). */
  downWith: number | null = null;

  constructor(readonly options: PluginOptions) {
    this.client = new ServiceClient(`${options.serviceUrl}/api/v1`);
  }

  /** Signs a shop admin in (a test's stand-in for the platform's login); returns the session cookie's value. */
  openAdminSession(): string {
    const token = randomBytes(24).toString('base64url');
    this.adminSessions.set(token, createHash('sha256').update(token).digest('hex').slice(0, 32));
    return token;
  }

  /** The admin session of a request (its cookie or `Authorization: Bearer`), or undefined when not signed in. */
  adminSession(headers: IncomingHeaders): string | undefined {
    const bearer = /^Bearer (\S+)$/.exec(String(headers.authorization ?? ''))?.[1];
    const cookie = String(headers.cookie ?? '')
      .split(/;\s*/)
      .find((c) => c.startsWith(`${ADMIN_COOKIE}=`))
      ?.slice(ADMIN_COOKIE.length + 1);
    const token = bearer ?? cookie;
    return token ? this.adminSessions.get(token) : undefined;
  }

  /** Step 1: where to send the admin's browser; the state is remembered for 15 minutes, bound to the admin's session. */
  connectUrl(returnUrl: string, sessionId: string): string {
    return connectUrl({
      serviceUrl: this.options.serviceUrl,
      platform: this.options.platform,
      siteUrl: this.options.siteUrl,
      returnUrl,
      state: this.states.issue(sessionId),
      name: 'Reference shop',
      currency: 'USD',
      pluginVersion: this.options.pluginVersion ?? '1.0.0',
    });
  }

  /**
   * Steps 3-4: the browser came back; check the state is ours, fresh and this admin session's, then exchange the
   * code. A plugin that already holds credentials does not replace them: the admin must confirm the new store's name.
   */
  async completeConnect(query: URLSearchParams, sessionId: string | undefined): Promise<ConnectResult> {
    const back = readConnectReturn(query, this.states, sessionId);
    if (!back.ok) return back;
    const result = await this.client.exchange(back.code, this.options.siteUrl);
    if (result.status !== 200) return { ok: false, error: `exchange answered ${result.status}` };
    if (this.secret === undefined) {
      this.useCredentials(result.body.api_key, result.body.webhook_secret, result.body.store);
      return { ok: true, connected: result.body.store };
    }
    const token = this.pending.hold(sessionId!, result.body);
    return { ok: true, confirm: { token, store: result.body.store, current: this.connectedStore } };
  }

  /** The admin typed the new store's name on the confirmation page: only then the new credentials replace the old. */
  confirmConnect(token: string | null, storeName: string | null, sessionId: string | undefined): ConnectResult {
    const held = this.pending.confirm(token, sessionId, storeName);
    if (!held.ok) return held;
    this.useCredentials(held.result.api_key, held.result.webhook_secret, held.result.store);
    return { ok: true, connected: held.result.store };
  }

  /** The manual alternative: the owner pasted the key and signing secret from the dashboard. */
  useCredentials(apiKey: string, webhookSecret: string, store: ConnectedStore | null = null) {
    this.client.setKey(apiKey);
    this.secret = webhookSecret;
    this.connectedStore = store;
  }

  /** Starts the push receiver (and the connect return page) on loopback and returns the push URL. */
  async listen(): Promise<string> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://plugin');
      const admin = [START_PATH, RETURN_PATH, CONFIRM_PATH].includes(url.pathname);
      const session = admin ? this.adminSession(req.headers) : undefined;
      const answer = (r: ConnectResult) => (r.ok ? { status: 200, body: r } : { status: 400, body: { error: r.error } });
      const reply: Promise<{ status: number; body: unknown; location?: string }> =
        req.method === 'POST' && url.pathname === PUSH_PATH
          ? readRawBody(req).then((raw) => this.receivePush(req.headers, raw))
          : admin && !session
            ? // The admin pages need a signed-in shop admin: connecting is theirs to start and finish.
              Promise.resolve({ status: 401, body: { error: 'sign in to the shop admin first' } })
            : req.method === 'GET' && url.pathname === START_PATH
              ? Promise.resolve({ status: 302, body: {}, location: this.connectUrl(`${this.options.siteUrl}${RETURN_PATH}`, session!) })
              : req.method === 'GET' && url.pathname === RETURN_PATH
                ? this.completeConnect(url.searchParams, session).then(answer)
                : req.method === 'POST' && url.pathname === CONFIRM_PATH
                  ? readRawBody(req, 4096).then((raw) => {
                      const form = new URLSearchParams(raw);
                      return answer(this.confirmConnect(form.get('token'), form.get('store_name'), session));
                    })
                  : Promise.resolve({ status: 404, body: { error: 'not found' } });
      void reply
        .catch((err: Error) => ({ status: 500, body: { error: err.message } }))
        .then((r) =>
          res
            .writeHead(r.status, { 'content-type': 'application/json', ...('location' in r && r.location ? { location: r.location } : {}) })
            .end(JSON.stringify(r.body)),
        );
    });
    await new Promise<void>((ready) => this.server!.listen(0, '127.0.0.1', ready));
    return `${this.origin()}${PUSH_PATH}`;
  }

  /** The connect return URL on the running receiver (what a conformance check is pointed at). */
  returnUrl(): string {
    return `${this.origin()}${RETURN_PATH}`;
  }

  /** The URL on the running receiver that starts connecting: a redirect to the service's connect page. */
  startUrl(): string {
    return `${this.origin()}${START_PATH}`;
  }

  private origin() {
    return `http://127.0.0.1:${(this.server!.address() as { port: number }).port}`;
  }

  /** Step 5 and regular heartbeats. */
  heartbeat(pushUrl: string | null) {
    return this.client.heartbeat({
      plugin_version: this.options.pluginVersion ?? '1.0.0',
      platform_version: '9.1',
      site_url: this.options.siteUrl,
      push_url: pushUrl,
    });
  }

  /** Handles one push: verify, apply each update once, reply with applied and failed. */
  async receivePush(headers: IncomingHeaders, rawBody: string): Promise<PushReply> {
    if (this.downWith) return { status: this.downWith, body: { error: 'shop is down' } };
    const reply = await handlePush(headers, rawBody, { secret: () => this.secret, apply: (updates) => this.applyAll(updates) });
    const body = reply.body;
    if ('error' in body) this.pushes.push({ verified: reply.status !== 401, reason: body.error, updates: 0 });
    else this.pushes.push({ verified: true, updates: body.applied.length + body.failed.length });
    return reply;
  }

  /** Applies updates once each (the shop's ledger remembers ids) and says which were applied and which failed. */
  applyAll(updates: unknown[]) {
    return applyUpdates(updates, this.options.shop.appliedUpdates, (update) => this.options.shop.apply(update));
  }

  /** The pull fallback: fetch waiting updates, apply them, acknowledge. */
  pullOnce(): Promise<number> {
    return pullOnce(this.client, (updates) => this.applyAll(updates));
  }

  /** Pulls every pullIntervalMs (15 minutes by default) until stopped. */
  startPulling() {
    this.stopPulling = startPulling(() => this.pullOnce(), this.options.pullIntervalMs);
  }

  async stop() {
    this.stopPulling?.();
    await new Promise<void>((done) => (this.server ? (this.server.closeAllConnections(), this.server.close(() => done())) : done()));
  }
}
