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

  setKey(apiKey: string) {
    this.apiKey = apiKey;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
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
  heartbeat(beat: Heartbeat) {
    return this.call<{ connection: { id: string; status: string }; error?: { code: string } }>('PUT', '/connection', beat);
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
