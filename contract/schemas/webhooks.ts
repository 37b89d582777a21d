import { ORDER_EVENT_TYPES } from '../../domain/order-events.js';
import { z } from '../zod.js';
import { Order } from './orders.js';

export const WebhookEvent = z.enum([...ORDER_EVENT_TYPES, '*']).openapi('WebhookEvent');

export const WebhookCreate = z
  .object({
    url: z
      .string()
      .max(2000)
      .openapi({
        format: 'uri',
        description:
          'An absolute https URL whose host resolves only to public addresses (no private, link-local, reserved or loopback ' +
          'address; http://127.0.0.1:<port> and http://localhost:<port> only where the operator allows loopback targets). ' +
          'Checked when registered and again before every delivery; a refused address is 400 invalid_request with param url.',
        example: 'https://shop.example/hooks/store-commerce',
      }),
    events: z
      .array(WebhookEvent)
      .min(1)
      .max(ORDER_EVENT_TYPES.length + 1)
      .optional()
      .openapi({ description: 'Event kinds to receive, or ["*"] for all. Omitted means ["*"].' }),
  })
  .openapi('WebhookCreate');

export const WebhookCreated = z
  .object({
    id: z.uuid(),
    url: z.url(),
    events: z.array(WebhookEvent),
    secret: z.string().openapi({ description: 'whsec_… signing secret, shown only in this response.', example: 'whsec_3q2+7w…' }),
  })
  .openapi('WebhookCreated');

export const WebhookEndpoint = z
  .object({ id: z.uuid(), url: z.url(), events: z.array(WebhookEvent), active: z.boolean(), created_at: z.string() })
  .openapi('WebhookEndpoint');

export const WebhookList = z.object({ data: z.array(WebhookEndpoint) }).openapi('WebhookList');
export const WebhookIdParams = z.object({ id: z.string().openapi({ param: { description: 'The uuid of the endpoint.' } }) });
export const WebhookDeleted = z.object({ id: z.uuid(), deleted: z.literal(true) }).openapi('WebhookDeleted');

/** The type of an event a delivery carries (an endpoint's list may also hold '*', never a delivery). */
export const WebhookEventType = z.enum(ORDER_EVENT_TYPES).openapi('WebhookEventType');

/**
 * The body of every webhook delivery (activities/webhooks/send.ts writes these bytes): the event's id (also sent as
 * webhook-id), its type, when it happened, and the order as GET /orders/{id} showed it at that moment.
 */
export const WebhookDelivery = z
  .object({
    id: z.uuid().openapi({ description: 'The event id, also sent as webhook-id: the same when a delivery is sent again.' }),
    type: WebhookEventType,
    created_at: z.string().openapi({ format: 'date-time', description: 'When the event happened (ISO 8601 UTC).' }),
    data: z.object({ order: Order }),
  })
  .openapi('WebhookDelivery');
