import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { TargetPolicy } from '../../domain/address-check.js';
import { openSecret } from '../../domain/secret-box.js';
import { timestampedSignature } from '../../domain/webhook-signature.js';
import { postOnce, USER_AGENT } from '../outbound/send.js';
import type { Resolver } from '../outbound/target.js';
import { findConnection } from './present.js';
import type { UpdatePushOutcome } from '../../workflows/connections/definitions.js';
import { acknowledge, presentUpdate } from './updates.js';
import type { ConnectionUpdateRow } from '../../db/tables/connection-updates.js';
import { executeBound } from '../../db/bound.js';
import { uuidInJson } from '../../db/sql-array.js';

/** Updates per push request. */
export const UPDATE_PUSH_BATCH = 50;
/** Push attempts per update before it is marked failed (it stays pullable). */
export const MAX_PUSH_ATTEMPTS = 8;

const Reply = z.object({
  applied: z.array(z.string()).default([]),
  failed: z.array(z.object({ id: z.string(), error: z.string().default('') })).default([]),
});

/**
 * Pushes one batch of due, waiting updates to the plugin's push_url, signed with the connection's
 * webhook secret over `timestamp.body`. The reply's applied/failed acknowledge; anything else leaves
 * the updates waiting with a back-off, and after MAX_PUSH_ATTEMPTS they are marked push-failed.
 */
export async function pushUpdateBatch(
  em: EntityManager,
  connectionId: string,
  opts: { secretsKey: Buffer | readonly Buffer[]; timeoutMs: number; policy: TargetPolicy; resolve?: Resolver },
): Promise<UpdatePushOutcome> {
  const connection = await findConnection(em, connectionId);
  if (!connection || connection.status !== 'active')
    return { stopped: 'disconnected', sent: 0, acknowledged: 0, more: false, nextPushInMs: null };
  if (!connection.push_url || !connection.webhook_secret_sealed)
    return { stopped: 'pull_only', sent: 0, acknowledged: 0, more: false, nextPushInMs: null };
  const due = await executeBound<ConnectionUpdateRow>(
    em,
    `select * from connection_updates where connection_id = ? and state = 'waiting' and not push_failed and next_push_at <= now()
     order by created_at, id limit ?`,
    [connectionId, UPDATE_PUSH_BATCH],
  );
  if (due.length === 0) return { sent: 0, acknowledged: 0, more: false, nextPushInMs: await nextDue(em, connectionId) };

  const body = JSON.stringify({ updates: due.map(presentUpdate) });
  const timestamp = Math.floor(Date.now() / 1000);
  const secret = openSecret(opts.secretsKey, connection.webhook_secret_sealed);
  const result = await postOnce({
    url: connection.push_url,
    body,
    timeoutMs: opts.timeoutMs,
    policy: opts.policy,
    ...(opts.resolve ? { resolve: opts.resolve } : {}),
    keepReplyBytes: 1_048_576,
    headers: {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'x-service-timestamp': String(timestamp),
      'x-service-signature': timestampedSignature(secret, timestamp, body),
    },
  });
  let acknowledged = 0;
  let error = result.error;
  if (result.ok) {
    const reply = safeJson(result.reply);
    const parsed = Reply.safeParse(reply);
    if (parsed.success) acknowledged = await acknowledge(em, connectionId, parsed.data);
    else error = 'the reply was not {applied: [...], failed: [...]}';
  }
  // Whatever the reply did not acknowledge waits for the next attempt: 2, 4, 8 … s after attempt 1, 2, 3 …, at most 512 s.
  await executeBound(
    em,
    `update connection_updates set push_attempts = push_attempts + 1, last_push_error = ?,
       push_failed = push_attempts + 1 >= ?, next_push_at = now() + make_interval(secs => power(2, least(push_attempts + 1, 9))::int), updated_at = now()
     where id ${uuidInJson('?::jsonb')} and state = 'waiting'`,
    [error ?? 'not acknowledged in the reply', MAX_PUSH_ATTEMPTS, JSON.stringify(due.map((u) => u.id))],
  );
  await executeBound(em, `update connections set status_detail = ? where id = ? and status = 'active'`, [
    error ? `pushes failing: ${error}`.slice(0, 300) : null,
    connectionId,
  ]);
  const more = due.length === UPDATE_PUSH_BATCH && acknowledged > 0;
  return { sent: due.length, acknowledged, more, nextPushInMs: more ? 0 : await nextDue(em, connectionId) };
}

async function nextDue(em: EntityManager, connectionId: string): Promise<number | null> {
  const [row] = await executeBound<{ ms: string | null }>(
    em,
    `select (extract(epoch from min(next_push_at) - now()) * 1000)::bigint as ms from connection_updates
     where connection_id = ? and state = 'waiting' and not push_failed`,
    [connectionId],
  );
  return row?.ms === null || row?.ms === undefined ? null : Math.max(0, Number(row.ms));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
