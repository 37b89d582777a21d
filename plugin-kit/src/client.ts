import { createStoreCommerceClient, type components, type StoreCommerceClient, type TransportOptions } from '@store-commerce/sdk';
import type { ApplyReport } from './protocol.js';

type Schemas = components['schemas'];
export type Heartbeat = Schemas['ConnectionHeartbeat'];
export type ExchangeResult = Schemas['ConnectExchangeResult'];

/** An answer as the plugin needs it: the status, and the body (the error envelope on a failure, null when none). */
export interface Answer<T> {
  status: number;
  body: T;
}

/**
 * The service's HTTP API as a plugin uses it, server to server, from the shop's backend: the SDK's client
 * (its timeout, retries of idempotent calls, Retry-After and client header) with the answers kept as
 * {status, body}, since a plugin acts on statuses (a 409 on the heartbeat means pause).
 */
export class ServiceClient {
  private sdk: StoreCommerceClient;

  /** @param apiBase the service's API base, `{PUBLIC_URL}/api/v1` */
  constructor(
    readonly apiBase: string,
    private apiKey?: string,
    private readonly transport: Omit<TransportOptions, 'baseUrl' | 'apiKey'> = {},
  ) {
    this.sdk = this.client();
  }

  private client() {
    return createStoreCommerceClient({ ...this.transport, baseUrl: this.apiBase, apiKey: this.apiKey });
  }

  /**
   * Set when PUT /connection answered 409 (this site's host is not the connected one: a staging copy?):
   * the client then sends nothing but heartbeats, so no order reaches the live store, until a heartbeat
   * passes again or a new key is set (the shop connected again).
   */
  paused: { since: Date; reason: string } | null = null;

  setKey(apiKey: string) {
    this.apiKey = apiKey;
    this.sdk = this.client();
    this.paused = null;
  }

  /** The SDK client with the current key, for anything beyond the protocol's calls. */
  get api(): StoreCommerceClient {
    return this.sdk;
  }

  private async answer<T>(pending: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<Answer<T>> {
    const { data, error, response } = await pending;
    return { status: response.status, body: (data ?? error ?? null) as T };
  }

  /** Sends unless paused; a paused client answers 409 itself: the service never hears from a paused copy of the shop. */
  private unlessPaused<T>(send: () => Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<Answer<T>> {
    if (this.paused)
      return Promise.resolve({ status: 409, body: { error: { code: 'paused', message: `paused: ${this.paused.reason}` } } as T });
    return this.answer<T>(send());
  }

  /** Step 4: the svc_code for a connection key and the push signing secret (any failure is a 400). */
  exchange(code: string, siteUrl: string) {
    return this.answer<ExchangeResult>(this.sdk.raw.POST('/connect/exchange', { body: { code, site_url: siteUrl } }));
  }

  /** Step 5, and then regularly; a 409 means the shop's host is not the connected one: pause until reconnected. */
  async heartbeat(beat: Heartbeat) {
    const res = await this.answer<{ connection: { id: string; status: string }; error?: { code: string; message?: string } }>(
      this.sdk.raw.PUT('/connection', { body: beat }),
    );
    if (res.status === 409) this.paused = { since: new Date(), reason: res.body.error?.message ?? 'PUT /connection answered 409' };
    else if (res.status === 200) this.paused = null;
    return res;
  }

  /** Mirrors one order of the shop into the service (safe to retry: the external_id decides). */
  sendOrder(order: Record<string, unknown>) {
    return this.unlessPaused<{ order: { id: string } | null; action: string }>(() =>
      this.sdk.raw.POST('/orders', { body: order as unknown as Schemas['OrderInput'] }),
    );
  }

  /** Waiting updates, oldest first. */
  pullUpdates(limit = 50) {
    return this.unlessPaused<Schemas['UpdateList']>(() => this.sdk.raw.GET('/connection/updates', { params: { query: { limit } } }));
  }

  /** Acknowledges pulled updates; acknowledged ones are never sent again. */
  ack(applied: ApplyReport['applied'], failed: ApplyReport['failed']) {
    return this.unlessPaused<{ acknowledged: number }>(() => this.sdk.raw.POST('/connection/updates/ack', { body: { applied, failed } }));
  }

  disconnect() {
    return this.unlessPaused<{ ok: true }>(() => this.sdk.raw.POST('/connect/disconnect'));
  }
}
