import type { Config } from '../../../config/env.js';
import { storeUrls } from '../../../contract/urls.js';
import { z } from '../../../contract/zod.js';
import type { ApiKey } from '../../../db/entities/api-key.js';
import type { Store } from '../../../db/entities/store.js';
import { STORE_MODES, STORE_PLANS } from '../../../domain/store.js';
import { createKey, createStore, findStoreWithKeys, setStorePlan } from '../../../services/stores.js';
import { idOption } from '../args.js';
import { defineCommand, fields } from '../command.js';
import { CommandError } from '../errors.js';

const plan = z.enum(STORE_PLANS, { error: `must be ${STORE_PLANS.join(' or ')}` });

/** The store as every store command prints it. */
export function storeView(config: Pick<Config, 'publicUrl'>, store: Store) {
  const { id, name, slug, currency, mode } = store;
  return { id, name, slug, ...storeUrls(config, slug), currency, mode, plan: store.plan };
}

/** A key as it may be shown again: never the key itself. */
function keyView(key: ApiKey) {
  const { id, kind, prefix, scopes, origins } = key;
  return {
    id,
    kind,
    prefix,
    scopes,
    origins,
    connection_id: key.connectionId,
    label: key.label,
    created_at: key.createdAt,
    revoked_at: key.revokedAt ?? null,
  };
}

const storeCreate = defineCommand({
  name: 'store create',
  usage: '--name N [--plan free|paid] [--currency C] [--mode full|tracking_only]',
  summary: 'Creates a published store with a secret key (default scopes) and a publishable key (no allowed websites yet).',
  options: { name: 'string', plan: 'string', currency: 'string', mode: 'string' },
  input: z.object({
    name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
    plan: plan.optional(),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3}$/, 'must be a three-letter currency code such as USD')
      .optional(),
    mode: z.enum(STORE_MODES, { error: `must be ${STORE_MODES.join(' or ')}` }).optional(),
  }),
  async run({ config, em }, input) {
    const { store, secret, publishable } = await em.transactional(async (tx) => {
      const store = await createStore(tx, input);
      const secret = await createKey(tx, store.id, { kind: 'secret' });
      const publishable = await createKey(tx, store.id, { kind: 'publishable' });
      return { store, secret: secret.plain, publishable: publishable.plain };
    });
    const view = storeView(config, store);
    return {
      json: { store: view, keys: { secret, publishable } },
      text: [
        'Store created.',
        fields(view, '  '),
        'Keys, shown only now; store them safely:',
        fields({ secret, publishable }, '  '),
        'The publishable key has no allowed websites yet; for browser use create one with: key create --kind publishable --origins …',
      ].join('\n'),
    };
  },
});

const storePlan = defineCommand({
  name: 'store plan',
  usage: '--store ID --plan free|paid',
  summary: 'Moves a store to another plan; its rate limits change from the next request.',
  options: { store: 'string', plan: 'string' },
  input: z.object({ store: idOption('store'), plan }),
  async run({ config, em }, input) {
    const store = await setStorePlan(em, input.store, input.plan);
    if (!store) throw new CommandError(`no store ${input.store}`);
    const view = storeView(config, store);
    return { json: { store: view }, text: `Store plan set to ${store.plan}.\n${fields(view, '  ')}` };
  },
});

const storeShow = defineCommand({
  name: 'store show',
  usage: '--store ID',
  summary: 'Shows a store and its keys (never the keys themselves).',
  options: { store: 'string' },
  input: z.object({ store: idOption('store') }),
  async run({ config, em }, input) {
    const found = await findStoreWithKeys(em, input.store);
    if (!found) throw new CommandError(`no store ${input.store}`);
    const view = storeView(config, found.store);
    const keys = found.keys.map(keyView);
    return {
      json: { store: view, keys },
      text: [fields(view), `keys (${keys.length}):`, ...keys.map(({ id, ...key }) => `  ${id}\n${fields(key, '    ')}`)].join('\n'),
    };
  },
});

export const storeCommands = [storeCreate, storePlan, storeShow];
