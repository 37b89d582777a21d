// The worker's one LISTEN connection: the relay's channel and the lanes' channel on the same connection,
// each notification to its channel's subscribers only, channels subscribed after the start included.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PgNotifications } from '../../db/notifications.js';
import { eventually } from '../helpers/receiver.js';

let notifications: PgNotifications;
let writer: pg.Client;

beforeAll(async () => {
  notifications = new PgNotifications(inject('databaseUrl'));
  writer = new pg.Client({ connectionString: inject('databaseUrl') });
  await writer.connect();
});

afterAll(async () => {
  await notifications?.stop();
  await writer?.end();
});

/** The backends of this database listening on a channel of this test (by their last statement). */
const listeners = async (tag: string) =>
  (
    await writer.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity where datname = current_database() and query ilike $1`,
      [`listen%${tag}%`],
    )
  ).rows[0]!.n;

describe('PgNotifications', () => {
  it('routes each channel to its subscribers over one connection, channels added after the start too', async () => {
    const tag = `t${process.pid}`;
    const got: string[] = [];
    notifications.subscribe(`${tag}_a`, (payload) => got.push(`a:${payload}`));
    notifications.start();
    await eventually(async () => (await listeners(tag)) > 0, 10_000, 'the LISTEN connection');
    const stopB = notifications.subscribe(`${tag}_b`, (payload) => got.push(`b:${payload}`));
    // LISTEN on the new channel is issued on the same connection: give it a moment to be in place.
    await eventually(
      async () => {
        await writer.query(`select pg_notify($1, 'ping')`, [`${tag}_b`]);
        return got.includes('b:ping');
      },
      10_000,
      'the second channel',
    );
    await writer.query(`select pg_notify($1, 'one')`, [`${tag}_a`]);
    await writer.query(`select pg_notify($1, 'two')`, [`${tag}_b`]);
    await eventually(() => got.includes('a:one') && got.includes('b:two'), 10_000, 'both notifications');
    expect(got.filter((g) => g.endsWith(':one') || g.endsWith(':two'))).toEqual(['a:one', 'b:two']);
    // One backend listens for both channels.
    const [row] = (
      await writer.query<{ n: number }>(
        `select count(distinct pid)::int as n from pg_stat_activity where datname = current_database() and query ilike $1`,
        [`listen%${tag}%`],
      )
    ).rows;
    expect(row!.n).toBe(1);
    stopB();
    await writer.query(`select pg_notify($1, 'three')`, [`${tag}_b`]);
    await writer.query(`select pg_notify($1, 'four')`, [`${tag}_a`]);
    await eventually(() => got.includes('a:four'), 10_000, 'the first channel still');
    expect(got).not.toContain('b:three');
  });
});
