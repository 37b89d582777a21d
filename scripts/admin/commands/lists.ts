import { executeBound } from '../../../db/bound.js';
import { z } from '../../../contract/zod.js';
import { findStoreWithKeys, listStores, storeExists } from '../../../services/stores.js';
import { idOption } from '../args.js';
import { defineCommand, fields } from '../command.js';
import { CommandError } from '../errors.js';
import { keyView, storeView } from './store.js';
import type { OwnerRow } from '../../../db/tables/owners.js';
import type { WebhookEndpointRow } from '../../../db/tables/webhook-endpoints.js';

// The read-only listings an operator starts from: which stores exist, their keys, the dashboard accounts,
// a store's webhook endpoints. None prints a key, a password hash or a signing secret.

/** One line per record for people: its id, then the other fields on one line. */
const lines = (title: string, rows: Record<string, unknown>[]) =>
  [`${title} (${rows.length}):`, ...rows.map(({ id, ...rest }) => `  ${String(id)}\n${fields(rest, '    ')}`)].join('\n');

const storeList = defineCommand({
  name: 'store list',
  usage: '',
  summary: 'Lists every store, oldest first, with its plan and mode.',
  options: {},
  input: z.object({}),
  async run({ config, em }) {
    const stores = await listStores(em);
    const views = stores.map((s) => storeView(config, s));
    return { json: { stores: views }, text: lines('stores', views) };
  },
});

const keyList = defineCommand({
  name: 'key list',
  usage: '--store ID',
  summary: "Lists a store's keys (kind, prefix, scopes, origins, revoked or not; never the keys themselves).",
  options: { store: 'string' },
  input: z.object({ store: idOption('store') }),
  async run({ em }, input) {
    const found = await findStoreWithKeys(em, input.store);
    if (!found) throw new CommandError(`no store ${input.store}`);
    const keys = found.keys.map(keyView);
    return { json: { keys }, text: lines('keys', keys) };
  },
});

const ownerList = defineCommand({
  name: 'owner list',
  usage: '',
  summary: 'Lists the dashboard accounts and the stores each one runs.',
  options: {},
  input: z.object({}),
  async run({ em }) {
    const rows = await executeBound<Pick<OwnerRow, 'id' | 'email' | 'created_at'> & { stores: string[] }>(
      em,
      `select o.id, o.email, o.created_at, coalesce(array_agg(os.store_id::text order by os.created_at) filter (where os.store_id is not null), '{}') as stores
         from owners o left join owner_stores os on os.owner_id = o.id
        group by o.id order by o.created_at, o.id`,
    );
    const owners = rows.map((r) => ({ id: r.id, email: r.email, stores: r.stores, created_at: new Date(r.created_at).toISOString() }));
    return { json: { owners }, text: lines('owners', owners) };
  },
});

const webhooksList = defineCommand({
  name: 'webhooks list',
  usage: '--store ID',
  summary: "Lists a store's webhook endpoints (url, events, active; never their signing secrets).",
  options: { store: 'string' },
  input: z.object({ store: idOption('store') }),
  async run({ em }, input) {
    if (!(await storeExists(em, input.store))) throw new CommandError(`no store ${input.store}`);
    const rows = await executeBound<Pick<WebhookEndpointRow, 'id' | 'url' | 'events' | 'active' | 'created_at'>>(
      em,
      `select id, url, events, active, created_at from webhook_endpoints
        where store_id = ? and deleted_at is null order by created_at, id`,
      [input.store],
    );
    const endpoints = rows.map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString() }));
    return { json: { endpoints }, text: lines('endpoints', endpoints) };
  },
});

export const listCommands = [storeList, keyList, ownerList, webhooksList];
