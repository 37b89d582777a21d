import { defineEntity, p } from '@mikro-orm/postgresql';
import type { EntityRow } from '../tables/entity-row.js';
import { Store } from './store.js';

/** Stored kinds; a connection key is a secret key with a connection_id. */
export const KEY_KINDS = ['secret', 'publishable', 'legacy'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.uuid().primary(),
    store: () => p.manyToOne(Store).deleteRule('cascade'),
    kind: p.enum(KEY_KINDS),
    /** Hex SHA-256 of the whole key: keys are high-entropy, so a fast hash is enough and lookups stay O(1). */
    keyHash: p.text().unique(),
    /** First characters of the key, for people to recognise it in lists. */
    prefix: p.text(),
    scopes: p.array(),
    /** Allowed websites (origins) of a publishable key. */
    origins: p.array(),
    connectionId: p.uuid().nullable(),
    label: p.text().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    revokedAt: p.datetime().nullable(),
    /** To the minute: the auth statement touches it at most once a minute per key. */
    lastUsedAt: p.datetime().nullable(),
  },
});

export class ApiKey extends ApiKeySchema.class {}
ApiKeySchema.setClass(ApiKey);

/** An api_keys row as hand-written SQL reads it (snake_case; store_id for the store). */
export type ApiKeyRow = EntityRow<ApiKey, 'store'>;
