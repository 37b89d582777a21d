// Name resolution for outbound targets: c-ares (never libuv's thread pool), both address families,
// and a deadline at registration. DNS here is a loopback server of the test's own: no query leaves
// the machine.
import { createSocket, type Socket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../contract/errors.js';
import { createSystemResolver, RESOLVE_DEADLINE_MS, type Resolver } from '../../services/outbound/target.js';
import { createEndpoint } from '../../services/webhooks/endpoints.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore } from '../helpers/store.js';

/** name → { A, AAAA } records; a name listed as 'silent' is never answered; anything else is NXDOMAIN. */
const ZONE: Record<string, { a?: string[]; aaaa?: string[] } | 'silent'> = {
  'both.test.example': { a: ['93.184.215.14'], aaaa: ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'] },
  'v4only.test.example': { a: ['93.184.215.15'] },
  'slow.test.example': 'silent',
};

function ipv6Bytes(address: string): Buffer {
  const [head, tail = ''] = address.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return Buffer.concat(groups.map((g) => Buffer.from(g.padStart(4, '0'), 'hex')));
}

/** A minimal authoritative DNS server on 127.0.0.1 (one question per query, as resolvers send). */
async function startDns(): Promise<{ server: Socket; address: string }> {
  const server = createSocket('udp4');
  server.on('message', (query, peer) => {
    let offset = 12;
    const labels: string[] = [];
    while (query[offset]! > 0) {
      labels.push(query.subarray(offset + 1, offset + 1 + query[offset]!).toString());
      offset += query[offset]! + 1;
    }
    const question = query.subarray(12, offset + 5);
    const type = query.readUInt16BE(offset + 1);
    const entry = ZONE[labels.join('.').toLowerCase()];
    if (entry === 'silent') return;
    const records = entry ? ((type === 1 ? entry.a : type === 28 ? entry.aaaa : undefined) ?? []) : [];
    const answers = records.map((address) => {
      const data = type === 1 ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
      const head = Buffer.alloc(12);
      head.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      head.writeUInt16BE(type, 2);
      head.writeUInt16BE(1, 4);
      head.writeUInt32BE(60, 6);
      head.writeUInt16BE(data.length, 10);
      return Buffer.concat([head, data]);
    });
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(entry ? 0x8580 : 0x8583, 2); // answer, authoritative; rcode 3 (NXDOMAIN) for unknown names
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    server.send(Buffer.concat([header, question, ...answers]), peer.port, peer.address);
  });
  await new Promise<void>((ready) => server.bind(0, '127.0.0.1', ready));
  return { server, address: `127.0.0.1:${server.address().port}` };
}

let dns: Awaited<ReturnType<typeof startDns>>;
let t: TestApp;
beforeAll(async () => {
  dns = await startDns();
  t = await createTestApp();
});
afterAll(async () => {
  dns.server.close();
  await t.close();
});

describe('names resolve through c-ares, both families', () => {
  it('every A and AAAA address of a name is returned', async () => {
    const resolve = createSystemResolver({ servers: [dns.address] });
    expect((await resolve('both.test.example')).sort()).toEqual(['2606:2800:21f:cb07:6820:80da:af6b:8b2c', '93.184.215.14']);
    expect(await resolve('v4only.test.example')).toEqual(['93.184.215.15']);
  });

  it('a name that does not exist is refused at once', async () => {
    const resolve = createSystemResolver({ servers: [dns.address] });
    await expect(resolve('nowhere.test.example')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('a server that never answers fails after the query timeout, not after the OS default', async () => {
    const resolve = createSystemResolver({ servers: [dns.address], timeoutMs: 200, tries: 1 });
    const started = Date.now();
    await expect(resolve('slow.test.example')).rejects.toBeTruthy();
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('registration has a deadline', () => {
  it(`a webhook URL whose name does not resolve within ${RESOLVE_DEADLINE_MS / 1000} s is refused with 400 param url, not left hanging`, async () => {
    const s = await createTestStore(t.orm);
    const never: Resolver = () => new Promise(() => undefined);
    const started = Date.now();
    const error = await createEndpoint(t.orm.em.fork(), {
      storeId: s.store.id,
      url: 'https://hangs.example/hook',
      events: ['*'],
      secretsKey: t.config.secretsKey,
      policy: { allowLoopback: false },
      resolve: never,
    }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'invalid_request', param: 'url', status: 400 });
    expect((error as ApiError).message).toMatch(/did not resolve within 5 s/);
    expect(Date.now() - started).toBeLessThan(RESOLVE_DEADLINE_MS + 1500);
  }, 15_000);
});
