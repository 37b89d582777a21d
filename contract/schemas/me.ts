import { SCOPES } from '../../domain/scopes.js';
import { STORE_MODES } from '../../domain/store.js';
import { z } from '../zod.js';

export const StoreInfo = z
  .object({
    api_version: z.literal('v1'),
    store: z.object({
      id: z.uuid(),
      name: z.string(),
      slug: z.string(),
      url: z.url(),
      tracking_url: z.url(),
      currency: z.string(),
      mode: z.enum(STORE_MODES),
    }),
    key: z.object({
      kind: z.enum(['secret', 'publishable']).openapi({ description: 'Legacy and connection keys report secret.' }),
      scopes: z.array(z.enum(SCOPES)),
      connection_id: z.uuid().nullable().openapi({ description: 'Set for a plugin connection key.' }),
    }),
    limits: z.object({ requests_per_minute: z.int() }),
  })
  .openapi('StoreInfo');
