import type { Update } from './shop.js';

/** The service's HTTP API as a plugin uses it (server to server, from the shop's backend). */
export class ServiceClient {
  constructor(
    readonly baseUrl: string,
    private apiKey?: string,
  ) {}

  setKey(apiKey: string) {
    this.apiKey = apiKey;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${this.baseUrl}${path}`, {
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

  /** Step 4 of the connection flow: the code from svc_code for a connection key and the push signing secret. */
  exchange(code: string, siteUrl: string) {
    return this.call<{ api_key: string; webhook_secret: string; connection_id: string; store: { id: string; name: string } }>(
      'POST',
      '/connect/exchange',
      { code, site_url: siteUrl },
    );
  }

  /** Step 5, and then regularly: versions, site_url and push_url (null when the shop cannot be reached). */
  heartbeat(beat: {
    plugin_version: string;
    platform_version: string;
    site_url: string;
    push_url: string | null;
    shop_name?: string;
    currency?: string;
  }) {
    return this.call<{ connection: { id: string; status: string }; error?: { code: string } }>('PUT', '/connection', beat);
  }

  /** Mirrors one order of the shop into the service. */
  sendOrder(order: Record<string, unknown>) {
    return this.call<{ order: { id: string } | null; action: string }>('POST', '/orders', order);
  }

  pullUpdates(limit = 50) {
    return this.call<{ updates: Update[] }>('GET', `/connection/updates?limit=${limit}`);
  }

  ack(applied: string[], failed: { id: string; error: string }[]) {
    return this.call<{ acknowledged: number }>('POST', '/connection/updates/ack', { applied, failed });
  }

  disconnect() {
    return this.call<{ ok: true }>('POST', '/connect/disconnect');
  }
}
