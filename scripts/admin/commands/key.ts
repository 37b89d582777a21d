import { ApiError } from '../../../contract/errors.js';
import { z } from '../../../contract/zod.js';
import { KEY_KINDS } from '../../../db/entities/api-key.js';
import { SCOPES } from '../../../domain/scopes.js';
import { createKey, normalizeOrigin, revokeKey, storeExists } from '../../../services/stores.js';
import { idOption, listOption } from '../args.js';
import { defineCommand, fields } from '../command.js';
import { CommandError, UsageError } from '../errors.js';

const scopes = listOption('scope').superRefine((items, ctx) => {
  const unknown = items.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length)
    ctx.addIssue({ code: 'custom', input: items, message: `has unknown scope ${unknown.join(', ')} (known: ${SCOPES.join(', ')})` });
});

const origins = listOption('website').transform((items, ctx) =>
  items.map((item) => {
    try {
      return normalizeOrigin(item);
    } catch {
      ctx.addIssue({ code: 'custom', input: item, message: `has ${item}, which is not a website origin such as https://shop.example` });
      return item;
    }
  }),
);

const keyCreate = defineCommand({
  name: 'key create',
  usage: '--store ID --kind secret|publishable|legacy [--scopes s1,s2] [--origins https://a.example,https://b.example]',
  summary: 'Creates a key for a store; the key is shown only once. --origins lists the websites of a publishable key.',
  options: { store: 'string', kind: 'string', scopes: 'string', origins: 'string' },
  input: z.object({
    store: idOption('store'),
    kind: z.enum(KEY_KINDS, { error: `must be ${KEY_KINDS.join(', ')}` }),
    scopes: scopes.optional(),
    origins: origins.optional(),
  }),
  async run({ em }, input) {
    if (input.origins && input.kind !== 'publishable') throw new UsageError('--origins applies to publishable keys only');
    if (!(await storeExists(em, input.store))) throw new CommandError(`no store ${input.store}`);
    let created;
    try {
      created = await createKey(em, input.store, { kind: input.kind, scopes: input.scopes, origins: input.origins });
    } catch (err) {
      // A scope this kind of key may not hold: a wrong command line.
      if (err instanceof ApiError && err.code === 'invalid_request') throw new UsageError(err.message);
      throw err;
    }
    const { key, plain } = created;
    const view = { id: key.id, key: plain, kind: key.kind, scopes: key.scopes, origins: key.origins };
    return { json: view, text: `Key created. It is shown only now; store it safely.\n${fields(view, '  ')}` };
  },
});

const keyRevoke = defineCommand({
  name: 'key revoke',
  usage: '--id KEY_ID',
  summary: 'Revokes a key; requests with it get 401 from the next one on.',
  options: { id: 'string' },
  input: z.object({ id: idOption('key') }),
  async run({ em }, input) {
    const key = await revokeKey(em, input.id);
    if (!key) throw new CommandError(`no key ${input.id}`);
    return { json: { id: key.id, revoked: true }, text: `Key ${key.id} revoked at ${key.revokedAt?.toISOString()}.` };
  },
});

export const keyCommands = [keyCreate, keyRevoke];
