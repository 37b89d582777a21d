import { z } from '../../../contract/zod.js';
import { iso, isoOrNull } from '../../../domain/dates.js';
import { approveConnection, PLATFORMS } from '../../../services/connections/codes.js';
import { findConnection } from '../../../services/connections/present.js';
import { listUpdates, presentUpdate, replayUpdates } from '../../../services/connections/updates.js';
import { idOption } from '../args.js';
import { defineCommand, fields } from '../command.js';
import { CommandError } from '../errors.js';
import { storeExists } from '../../../services/stores.js';

const connectionApprove = defineCommand({
  name: 'connection approve',
  usage: '--store ID --platform platform_a|platform_b --site-url URL',
  summary: 'Issues the connect code the connect page issues on approval (single use, bound to the site host).',
  options: { store: 'string', platform: 'string', 'site-url': 'string' },
  input: z.object({
    store: idOption('store'),
    platform: z.enum(PLATFORMS, { error: `must be ${PLATFORMS.join(' or ')}` }),
    'site-url': z.url({ protocol: /^https?$/, error: 'must be the shop’s http(s) address' }),
  }),
  async run({ em, config }, input) {
    if (!(await storeExists(em, input.store))) throw new CommandError(`no store ${input.store}`);
    // A store at its plan's limit is an ApiError (conflict): printed as a command error.
    const { code, expires_at } = await approveConnection(em, {
      storeId: input.store,
      platform: input.platform,
      siteUrl: input['site-url'],
      ttlSeconds: config.connectCodeTtlSeconds,
    });
    return {
      json: { code, expires_at },
      text: `Connect code (single use, for ${new URL(input['site-url']).host} only):\n${fields({ code, expires_at }, '  ')}`,
    };
  },
});

const pushesList = defineCommand({
  name: 'pushes list',
  usage: '--connection ID [--failed]',
  summary: 'Updates of a connected shop with their delivery state and last error, newest first.',
  options: { connection: 'string', failed: 'boolean' },
  input: z.object({ connection: idOption('connection'), failed: z.boolean().optional() }),
  async run({ em }, input) {
    if (!(await findConnection(em, input.connection))) throw new CommandError(`no connection ${input.connection}`);
    const rows = await listUpdates(em, input.connection, input.failed === true);
    const updates = rows.map((r) => ({
      ...presentUpdate(r),
      state: r.state,
      push_attempts: r.push_attempts,
      push_failed: r.push_failed,
      last_push_error: r.last_push_error,
      ack_error: r.ack_error,
      created_at: iso(r.created_at),
      acked_at: isoOrNull(r.acked_at),
    }));
    const text = updates.length
      ? updates
          .map(
            (u) =>
              `${u.id}  ${u.state}${u.push_failed ? ' (push failed)' : ''}  order ${u.number ?? u.external_id}  ${u.status ?? 'tracking'}  attempts ${u.push_attempts}${u.last_push_error ? `  last error: ${u.last_push_error}` : ''}`,
          )
          .join('\n')
      : 'no updates';
    return { json: { updates }, text };
  },
});

const pushesReplay = defineCommand({
  name: 'pushes replay',
  usage: '--connection ID [--update ID]',
  summary: 'Sends waiting or failed updates again now.',
  options: { connection: 'string', update: 'string' },
  input: z.object({ connection: idOption('connection'), update: idOption('update').optional() }),
  async run({ em }, input) {
    if (!(await findConnection(em, input.connection))) throw new CommandError(`no connection ${input.connection}`);
    const replayed = await replayUpdates(em, input.connection, input.update);
    return { json: { replayed }, text: `${replayed} update(s) will be sent again now.` };
  },
});

export const connectionCommands = [connectionApprove, pushesList, pushesReplay];
