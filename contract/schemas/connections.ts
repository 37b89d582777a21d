import { z } from '../zod.js';

export const ConnectedStore = z
  .object({ id: z.uuid(), name: z.string(), slug: z.string(), tracking_url: z.url(), dashboard_url: z.url() })
  .openapi('ConnectedStore');

export const Connection = z
  .object({
    id: z.uuid(),
    platform: z.enum(['platform_a', 'platform_b']),
    status: z.enum(['active', 'disconnected']).openapi({
      description: 'active: orders sync and updates go back; disconnected: the key no longer works (see docs/connections.md).',
    }),
    status_detail: z
      .string()
      .nullable()
      .openapi({ description: 'Why pushes are not flowing, when they are not (pull only, failing pushes).' }),
    shop_url: z.string().nullable(),
    orders_synced: z.int(),
    last_order_at: z.string().nullable(),
  })
  .openapi('Connection');

export const ConnectionEnvelope = z.object({ connection: Connection, store: ConnectedStore }).openapi('ConnectionEnvelope');

export const ConnectExchange = z
  .object({
    code: z.string().min(1).max(200).openapi({ description: 'The svc_code the connect page returned; single use, 10 minutes.' }),
    site_url: z.string().max(2000).openapi({
      format: 'uri',
      description: 'The shop home address: an absolute http or https URL on the same host as the one approved on the connect page.',
    }),
  })
  .openapi('ConnectExchange');
export const ConnectExchangeResult = z
  .object({
    api_key: z.string().openapi({ description: 'The connection key (a secret key bound to this connection), shown only here.' }),
    webhook_secret: z.string().openapi({ description: 'Signs pushed updates; shown only here.' }),
    connection_id: z.uuid(),
    store: ConnectedStore,
  })
  .openapi('ConnectExchangeResult');

export const Heartbeat = z
  .object({
    plugin_version: z.string().max(64).optional(),
    platform_version: z.string().max(64).optional(),
    shop_name: z.string().max(255).optional(),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3}$/, 'must be a 3-letter currency code')
      .optional(),
    site_url: z
      .url()
      .max(2000)
      .optional()
      .openapi({ description: 'The shop home address (absolute URL); a host other than the connected one is 409 conflict.' }),
    push_url: z
      .string()
      .max(2000)
      .nullable()
      .optional()
      .openapi({
        format: 'uri',
        description:
          'Where pushed updates are POSTed: an absolute https URL whose host resolves only to public addresses (the same rules as ' +
          'webhook urls); null when the shop cannot be reached, and the plugin then pulls.',
      }),
  })
  .openapi('ConnectionHeartbeat');

export const Update = z
  .object({
    id: z.uuid(),
    order_id: z.uuid(),
    external_id: z.string(),
    number: z.string().nullable(),
    status: z.enum(['shipped', 'out_for_delivery', 'completed']).nullable().openapi({ description: 'null means tracking only.' }),
    tracking: z.object({ number: z.string().nullable(), courier: z.string().nullable(), url: z.string().nullable() }),
    tracking_page_url: z.url(),
    comment: z.string().nullable(),
    updated_at: z.string(),
  })
  .openapi('Update');

/** Most updates one pull returns (our choice; the spec leaves it open). */
export const MAX_PULL = 200;
export const UpdatesQuery = z
  .object({
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_PULL)
      .default(50)
      .openapi({ description: `1 to ${MAX_PULL}, default 50.` }),
  })
  .strict();
export const UpdateList = z.object({ updates: z.array(Update) }).openapi('UpdateList');

export const UpdateAck = z
  .object({
    applied: z.array(z.string().max(64)).max(1000).default([]),
    failed: z
      .array(z.object({ id: z.string().max(64), error: z.string().max(2000) }))
      .max(1000)
      .default([]),
  })
  .openapi('UpdateAck');
export const UpdateAckResult = z.object({ acknowledged: z.int() }).openapi('UpdateAckResult');
export const Ok = z.object({ ok: z.literal(true) }).openapi('Ok');
