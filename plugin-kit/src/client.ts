import type { ApplyReport, Update } from './protocol.js';

export interface Heartbeat {
  plugin_version: string;
  platform_version: string;
  site_url: string;
  /** null when the shop cannot be reached from outside: the plugin then relies on pulling. */
  push_url: string | null;
  shop_name?: string;
  currency?: string;
}

export interface ExchangeResult {
  api_key: string;
  webhook_secret: string;
  connection_id: string;
  store: { id: string; name: string };
}

/** The service's HTTP API as a plugin uses it, server to server, from the shop's backend. */
export class ServiceClient {
  /** @param apiBase the service's API base, `{PUBLIC_URL}/api/v1` */
  constructor(
    readonly apiBase: string,
    private apiKey?: string,
  ) {}

  /**
   * Set when PUT /connection answered 409 (this site's host is not the connected one: a staging copy?):
   * the client then sends nothing but heartbeats, so no order reaches the live store, until a heartbeat
   * passes again or a new key is set (the shop connected again).
   */
  paused: { since: Date; reason: string } | null = null;

  setKey(apiKey: string) {
    this.apiKey = apiKey;
    this.paused = null;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    if (this.paused && !(method === 'PUT' && path === '/connection')) {
      // Answered here, without a request: the service never hears from a paused copy of the shop.
      return { status: 409, body: { error: { code: 'paused', message: `paused: ${this.paused.reason}` } } as T };
    }
    const response = await fetch(`${this.apiBase}${path}`, {
      method,
      headers: {
        ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      redirect: 'manual',
    });
    return { status: response.status, body: (await response.json().catch(() => null)) as T };
  }

  /** Step 4: the svc_code for a connection key and the push signing secret (any failure is a 400). */
  exchange(code: string, siteUrl: string) {
    return this.call<ExchangeResult>('POST', '/connect/exchange', { code, site_url: siteUrl });
  }

  /** Step 5, and then regularly; a 409 means the shop's host is not the connected one: pause until reconnected. */
  async heartbeat(beat: Heartbeat) {
    const res = await this.call<{ connection: { id: string; status: string }; error?: { code: string; message?: string } }>(
      'PUT',
      '/connection',
      beat,
    );
    if (res.status === 409) this.paused = { since: new Date(), reason: res.body.error?.message ?? 'PUT /connection answered 409' };
    else if (res.status === 200) this.paused = null;
    return res;
  }

  /** Mirrors one order of the shop into the service (safe to retry: the external_id decides). */
  sendOrder(order: Record<string, unknown>) {
    return this.call<{ order: { id: string } | null; action: string }>('POST', '/orders', order);
  }

  /** Waiting updates, oldest first. */
  pullUpdates(limit = 50) {
    return this.call<{ updates: Update[] }>('GET', `/connection/updates?limit=${limit}`);
  }

  /** Acknowledges pulled updates; acknowledged ones are never sent again. */
  ack(applied: ApplyReport['applied'], failed: ApplyReport['failed']) {
    return this.call<{ acknowledged: number }>('POST', '/connection/updates/ack', { applied, failed });
  }

  disconnect() {
    return this.call<{ ok: true }>('POST', '/connect/disconnect');
  }
}
