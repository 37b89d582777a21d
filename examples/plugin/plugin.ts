import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { ServiceClient } from './client.js';
import type { InMemoryShop, Update } from './shop.js';
import { verifyPush } from './signature.js';

/** How long a connect state is kept (spec: 15 minutes). */
export const STATE_TTL_MS = 15 * 60 * 1000;
/** How often the plugin pulls when pushes do not arrive (spec: every 15 minutes). */
export const PULL_INTERVAL_MS = 15 * 60 * 1000;

export interface PluginOptions {
  /** The service's public origin (PUBLIC_URL). */
  serviceUrl: string;
  platform: 'platform_a' | 'platform_b';
  siteUrl: string;
  shop: InMemoryShop;
  pluginVersion?: string;
  pullIntervalMs?: number;
}

/**
 * A reference plugin, as a platform_a or platform_b plugin author would write it: the connect flow with
 * a state kept 15 minutes, the exchange, the heartbeat, a push receiver that verifies and applies updates
 * once, and a pull every 15 minutes as a fallback.
 */
export class ReferencePlugin {
  readonly client: ServiceClient;
  private readonly states = new Map<string, number>();
  private secret: string | undefined;
  private server: Server | undefined;
  private pullTimer: NodeJS.Timeout | undefined;
  /** Pushes received, for whoever wants to watch (tests). */
  readonly pushes: { verified: boolean; reason?: string; updates: number }[] = [];
  /** Answer pushes with this status instead (to play a shop that is down). */
  downWith: number | null = null;

  constructor(readonly options: PluginOptions) {
    this.client = new ServiceClient(`${options.serviceUrl}/api/v1`);
  }

  /** Step 1: where to send the admin's browser; the state is remembered for 15 minutes. */
  connectUrl(returnUrl: string): string {
    const state = randomBytes(16).toString('hex');
    this.states.set(state, Date.now() + STATE_TTL_MS);
    const query = new URLSearchParams({
      site_url: this.options.siteUrl,
      return_url: returnUrl,
      state,
      name: 'Reference shop',
      currency: 'USD',
      v: this.options.pluginVersion ?? '1.0.0',
    });
    return `${this.options.serviceUrl}/connect/${this.options.platform}?${query}`;
  }

  /** Steps 3-4: the browser came back; check the state is ours and fresh, then exchange the code. */
  async completeConnect(query: URLSearchParams): Promise<{ ok: boolean; error?: string }> {
    const state = query.get('state') ?? '';
    const expires = this.states.get(state);
    this.states.delete(state);
    if (!expires || expires < Date.now()) return { ok: false, error: 'unknown or expired state' };
    const code = query.get('svc_code');
    if (!code) return { ok: false, error: query.get('svc_error') ?? 'no code' };
    const result = await this.client.exchange(code, this.options.siteUrl);
    if (result.status !== 200) return { ok: false, error: `exchange answered ${result.status}` };
    this.useCredentials(result.body.api_key, result.body.webhook_secret);
    return { ok: true };
  }

  /** The manual alternative: the owner pasted the key and signing secret from the dashboard. */
  useCredentials(apiKey: string, webhookSecret: string) {
    this.client.setKey(apiKey);
    this.secret = webhookSecret;
  }

  /** Starts the push receiver on loopback and returns its URL (the push_url sent in the heartbeat). */
  async listen(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const reply = this.receivePush(req.headers, Buffer.concat(chunks).toString('utf8'));
        res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
      });
    });
    await new Promise<void>((ready) => this.server!.listen(0, '127.0.0.1', ready));
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}/service-push`;
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
  receivePush(headers: Record<string, string | string[] | undefined>, rawBody: string): { status: number; body: unknown } {
    if (this.downWith) return { status: this.downWith, body: { error: 'shop is down' } };
    const check = this.secret ? verifyPush(headers, rawBody, this.secret) : { ok: false as const, reason: 'not connected' };
    if (!check.ok) {
      this.pushes.push({ verified: false, reason: check.reason, updates: 0 });
      return { status: 401, body: { error: check.reason } };
    }
    const { updates } = JSON.parse(rawBody) as { updates: Update[] };
    this.pushes.push({ verified: true, updates: updates.length });
    return { status: 200, body: this.applyAll(updates) };
  }

  /** Applies updates once each (idempotent) and says which were applied and which failed. */
  applyAll(updates: Update[]) {
    const applied: string[] = [];
    const failed: { id: string; error: string }[] = [];
    for (const update of updates) {
      try {
        this.options.shop.apply(update);
        applied.push(update.id);
      } catch (err) {
        failed.push({ id: update.id, error: (err as Error).message });
      }
    }
    return { applied, failed };
  }

  /** The pull fallback: fetch waiting updates, apply them, acknowledge. */
  async pullOnce(): Promise<number> {
    const { status, body } = await this.client.pullUpdates();
    if (status !== 200) return 0;
    const { applied, failed } = this.applyAll(body.updates);
    if (applied.length + failed.length) await this.client.ack(applied, failed);
    return body.updates.length;
  }

  /** Pulls every PULL_INTERVAL_MS (15 minutes) until stopped. */
  startPulling() {
    this.pullTimer = setInterval(() => void this.pullOnce().catch(() => undefined), this.options.pullIntervalMs ?? PULL_INTERVAL_MS);
    this.pullTimer.unref();
  }

  async stop() {
    clearInterval(this.pullTimer);
    await new Promise<void>((done) => (this.server ? (this.server.closeAllConnections(), this.server.close(() => done())) : done()));
  }
}
