import { createServer, type Server } from 'node:http';
import {
  applyUpdates,
  ConnectStates,
  connectUrl,
  handlePush,
  readConnectReturn,
  readRawBody,
  pullOnce,
  ServiceClient,
  startPulling,
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

/** The receiver's paths: the push_url sent in the heartbeat, the admin button that starts connecting, and the page it returns to. */
export const PUSH_PATH = '/service-push';
export const START_PATH = '/connect-start';
export const RETURN_PATH = '/connect-return';

/**
 * A reference plugin, as a platform_a or platform_b plugin author would write it with plugin-kit: the
 * connect flow with a state kept 15 minutes, the exchange, the heartbeat, a push receiver that verifies
 * and applies updates once, and a pull every 15 minutes as a fallback.
 */
export class ReferencePlugin {
  readonly client: ServiceClient;
  private readonly states = new ConnectStates();
  private secret: string | undefined;
  private server: Server | undefined;
  private stopPulling: (() => void) | undefined;
  /** Pushes received, for whoever wants to watch (tests). */
  readonly pushes: { verified: boolean; reason?: string; updates: number }[] = [];
  /** Answer pushes with this status instead (to play a shop that is down). */
  downWith: number | null = null;

  constructor(readonly options: PluginOptions) {
    this.client = new ServiceClient(`${options.serviceUrl}/api/v1`);
  }

  /** Step 1: where to send the admin's browser; the state is remembered for 15 minutes. */
  connectUrl(returnUrl: string): string {
    return connectUrl({
      serviceUrl: this.options.serviceUrl,
      platform: this.options.platform,
      siteUrl: this.options.siteUrl,
      returnUrl,
      state: this.states.issue(),
      name: 'Reference shop',
      currency: 'USD',
      pluginVersion: this.options.pluginVersion ?? '1.0.0',
    });
  }

  /** Steps 3-4: the browser came back; check the state is ours and fresh, then exchange the code. */
  async completeConnect(query: URLSearchParams): Promise<{ ok: boolean; error?: string }> {
    const back = readConnectReturn(query, this.states);
    if (!back.ok) return back;
    const result = await this.client.exchange(back.code, this.options.siteUrl);
    if (result.status !== 200) return { ok: false, error: `exchange answered ${result.status}` };
    this.useCredentials(result.body.api_key, result.body.webhook_secret);
    return { ok: true };
  }

  /** The manual alternative: the owner pasted the key and signing secret from the dashboard. */
  useCredentials(apiKey: string, webhookSecret: string) {
    this.client.setKey(apiKey);
    this.secret = webhookSecret;
  }

  /** Starts the push receiver (and the connect return page) on loopback and returns the push URL. */
  async listen(): Promise<string> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://plugin');
      const reply: Promise<{ status: number; body: unknown; location?: string }> =
        req.method === 'POST' && url.pathname === PUSH_PATH
          ? readRawBody(req).then((raw) => this.receivePush(req.headers, raw))
          : req.method === 'GET' && url.pathname === START_PATH
            ? Promise.resolve({ status: 302, body: {}, location: this.connectUrl(`${this.options.siteUrl}${RETURN_PATH}`) })
            : req.method === 'GET' && url.pathname === RETURN_PATH
              ? this.completeConnect(url.searchParams).then((r) =>
                  r.ok ? { status: 200, body: { connected: true } } : { status: 400, body: { error: r.error } },
                )
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
