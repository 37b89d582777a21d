import type { Config } from '../../../config/env.js';
import { storeUrls } from '../../../contract/urls.js';
import { z } from '../../../contract/zod.js';
import type { ApiKey } from '../../../db/entities/api-key.js';
import type { Store } from '../../../db/entities/store.js';
import { STORE_MODES, STORE_PLANS } from '../../../domain/store.js';
import { effectivePlan } from '../../../domain/plan.js';
import { setStorePlan } from '../../../services/plans/change.js';
import { createKey, createStore, findStoreWithKeys } from '../../../services/stores.js';
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
export function keyView(key: ApiKey) {
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
  usage: '--store ID --plan free|paid [--until ISO-8601]',
  summary:
    'Sets a store’s plan; its limits change from the next request. A paid plan ends at --until (then the store falls back to free, nothing deleted); without it, it does not end.',
  options: { store: 'string', plan: 'string', until: 'string' },
  input: z
    .object({
      store: idOption('store'),
      plan,
      until: z.iso
        .datetime({ offset: true, error: 'must be an ISO 8601 date and time such as 2027-01-31T00:00:00Z' })
        .transform((text) => new Date(text))
        .refine((date) => date.getTime() > Date.now(), 'must be in the future')
        .optional(),
    })
    .refine((o) => o.plan === 'paid' || o.until === undefined, { path: ['until'], message: 'goes with --plan paid only' }),
  async run({ config, em }, input) {
    const store = await setStorePlan(em, input.store, input.plan, input.until ?? null);
    if (!store) throw new CommandError(`no store ${input.store}`);
    const view = planView(config, store);
    const ends = view.paid_until ? `, until ${view.paid_until}` : '';
    return { json: { store: view }, text: `Store plan set to ${store.plan}${ends}.\n${fields(view, '  ')}` };
  },
});

/** The store with when its paid plan ends (null: it does not); `plan` is the plan in force now. */
function planView(config: Pick<Config, 'publicUrl'>, store: Store) {
  const paidUntil = store.paidUntil ?? null;
  return {
    ...storeView(config, store),
    plan: effectivePlan({ plan: store.plan, paidUntil }),
    paid_until: paidUntil && store.plan === 'paid' ? paidUntil.toISOString() : null,
  };
}

const storeShow = defineCommand({
  name: 'store show',
  usage: '--store ID',
  summary: 'Shows a store and its keys (never the keys themselves).',
  options: { store: 'string' },
  input: z.object({ store: idOption('store') }),
  async run({ config, em }, input) {
    const found = await findStoreWithKeys(em, input.store);
    if (!found) throw new CommandError(`no store ${input.store}`);
    const view = planView(config, found.store);
    const keys = found.keys.map(keyView);
    return {
      json: { store: view, keys },
      text: [fields(view), `keys (${keys.length}):`, ...keys.map(({ id, ...key }) => `  ${id}\n${fields(key, '    ')}`)].join('\n'),
    };
  },
});

export const storeCommands = [storeCreate, storePlan, storeShow];
