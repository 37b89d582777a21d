import type { Scope } from '../domain/scopes.js';

/**
 * Which keys a route accepts, as in the spec's endpoint table.
 * - any: every valid key; secret: secret, legacy and connection keys (a connection key is a secret key);
 * - secret_or_publishable: those plus publishable keys; connection: connection keys only; none: keyless.
 */
export type KeyRequirement = 'any' | 'secret' | 'secret_or_publishable' | 'connection' | 'none';
export interface Access {
  keys: KeyRequirement;
  permission: Scope | null;
}

/** The spec's endpoint table, row for row. Paths are relative to /api/v1. */
export const ENDPOINTS = {
  'GET /me': { keys: 'any', permission: null },
  'GET /orders': { keys: 'secret', permission: 'orders:read' },
  'POST /orders': { keys: 'secret', permission: 'orders:write' },
  'POST /orders/batch': { keys: 'secret', permission: 'orders:write' },
  'GET /orders/{id}': { keys: 'secret', permission: 'orders:read' },
  'PATCH /orders/{id}': { keys: 'secret', permission: 'orders:write' },
  'DELETE /orders/{id}': { keys: 'secret', permission: 'orders:write' },
  'POST /external-products/batch': { keys: 'connection', permission: 'products:write' },
  'DELETE /external-products/{external_id}': { keys: 'connection', permission: 'products:write' },
  'GET /products': { keys: 'secret_or_publishable', permission: 'products:read' },
  'GET /products/{id}': { keys: 'secret_or_publishable', permission: 'products:read' },
  'GET /categories': { keys: 'secret_or_publishable', permission: 'products:read' },
  'POST /checkout/sessions': { keys: 'secret_or_publishable', permission: 'checkout:write' },
  'GET /tracking': { keys: 'secret_or_publishable', permission: 'tracking:read' },
  'GET /webhooks': { keys: 'secret', permission: 'webhooks:write' },
  'POST /webhooks': { keys: 'secret', permission: 'webhooks:write' },
  'DELETE /webhooks/{id}': { keys: 'secret', permission: 'webhooks:write' },
  'POST /connect/exchange': { keys: 'none', permission: null },
  'POST /connect/disconnect': { keys: 'connection', permission: 'connection:manage' },
  'GET /connection': { keys: 'connection', permission: 'connection:manage' },
  'PUT /connection': { keys: 'connection', permission: 'connection:manage' },
  'GET /connection/updates': { keys: 'connection', permission: 'connection:manage' },
  'POST /connection/updates/ack': { keys: 'connection', permission: 'connection:manage' },
  'GET /openapi.json': { keys: 'none', permission: null },
} as const satisfies Record<string, Access>;

export type Endpoint = keyof typeof ENDPOINTS;
