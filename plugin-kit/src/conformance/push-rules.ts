import { randomBytes } from 'node:crypto';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../protocol.js';
import { signPush } from '../signature.js';
import type { Rule } from './context.js';
import { notRefused, readReply, type Answer } from './probe.js';

const refused = (answer: Promise<Answer>) => answer.then((a) => notRefused(a));
const code = () => randomBytes(6).toString('hex');

/** The push rules: what the plugin's push URL must accept, refuse and answer. */
export const PUSH_RULES: Rule[] = [
  {
    rule: 'push.valid',
    title: 'a signed, fresh push is applied and answered {applied: [id], failed: []} within 8 s',
    check: async (c) => {
      const u = c.update('conformance: valid push');
      return c.appliedOnly(await c.push([u]), u.id);
    },
  },
  {
    rule: 'push.duplicate',
    title: 'the same update pushed again is answered applied again (applying twice changes nothing)',
    check: async (c) => {
      const u = c.update('conformance: duplicate push');
      const first = c.appliedOnly(await c.push([u]), u.id);
      if (first) return `the first push was not applied: ${first}`;
      const second = c.appliedOnly(await c.push([u]), u.id, true);
      return second && `the second push of the same update: ${second}`;
    },
  },
  {
    rule: 'push.failed-reported',
    title: 'an update the shop cannot apply is reported in failed with an error, and the rest of the batch is applied',
    check: async (c) => {
      const good = c.update('conformance: batch, applies');
      const bad = { ...c.update('conformance: batch, unknown order'), external_id: `conformance-unknown-${code()}` };
      const answer = await c.push([good, bad]);
      const reply = readReply(answer);
      if ('bad' in reply) return reply.bad;
      if (!reply.failed.some((f) => f.id === bad.id && f.error.length > 0))
        return `the update for an unknown order is not in failed with an error: ${answer.text.slice(0, 160)}`;
      if (reply.applied.includes(bad.id)) return 'the update for an unknown order is reported applied';
      return c.appliedOnly(answer, good.id);
    },
  },
  {
    rule: 'push.window-inside',
    title: 'a push signed 4 minutes ago is accepted (inside the 5-minute window)',
    check: async (c) => {
      const u = c.update('conformance: 4 minutes old');
      return c.appliedOnly(await c.push([u], -240), u.id);
    },
  },
  {
    rule: 'push.stale-refused',
    title: 'a push replayed 10 minutes after it was signed is refused (outside the 5-minute window)',
    check: (c) => refused(c.push([c.update('conformance: stale')], -600)),
  },
  {
    rule: 'push.future-refused',
    title: 'a push timestamped 10 minutes ahead is refused',
    check: (c) => refused(c.push([c.update('conformance: from the future')], 600)),
  },
  {
    rule: 'push.retimed-refused',
    title: 'an old push re-sent with a fresh timestamp and its old signature is refused (the timestamp is signed)',
    check: (c) => {
      const body = JSON.stringify({ updates: [c.update('conformance: retimed replay')] });
      const old = signPush(c.opts.secret, body, c.now() - 600);
      return refused(c.send(body, { ...old, [TIMESTAMP_HEADER]: String(c.now()) }));
    },
  },
  {
    rule: 'push.forged-refused',
    title: 'a push signed with another secret is refused',
    check: (c) => {
      const body = JSON.stringify({ updates: [c.update('conformance: forged')] });
      return refused(c.send(body, signPush(`${c.opts.secret}-not`, body, c.now())));
    },
  },
  {
    rule: 'push.tampered-refused',
    title: 'a push whose body changed after it was signed is refused',
    check: (c) => {
      const u = c.update('conformance: tampered');
      const headers = signPush(c.opts.secret, JSON.stringify({ updates: [u] }), c.now());
      return refused(c.send(JSON.stringify({ updates: [{ ...u, tracking: { ...u.tracking, number: 'TAMPERED' } }] }), headers));
    },
  },
  {
    rule: 'push.unsigned-refused',
    title: 'a push without X-Service-Signature is refused',
    check: (c) => {
      const body = JSON.stringify({ updates: [c.update('conformance: unsigned')] });
      const { [SIGNATURE_HEADER]: _gone, ...headers } = signPush(c.opts.secret, body, c.now());
      return refused(c.send(body, headers));
    },
  },
  {
    rule: 'push.untimed-refused',
    title: 'a push without X-Service-Timestamp is refused',
    check: (c) => {
      const body = JSON.stringify({ updates: [c.update('conformance: no timestamp')] });
      const { [TIMESTAMP_HEADER]: _gone, ...headers } = signPush(c.opts.secret, body, c.now());
      return refused(c.send(body, headers));
    },
  },
  {
    rule: 'push.malformed-refused',
    title: 'a signed body that is not {updates: [...]} is refused with a 4xx (not applied, not a crash)',
    check: async (c) => {
      for (const body of ['{"updates":', '{"orders":[]}']) {
        const why = notRefused(await c.send(body, signPush(c.opts.secret, body, c.now())));
        if (why) return `${JSON.stringify(body)}: ${why}`;
      }
      return null;
    },
  },
  {
    rule: 'push.constant-time',
    title: 'signatures are compared in constant time',
    notCheckable: () =>
      "a byte compare differs by nanoseconds and network jitter is milliseconds; compare in constant time (the SDK's verifyPushedUpdates, which the kit's handlePush uses, does)",
  },
];
