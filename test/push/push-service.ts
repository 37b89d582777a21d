// A loopback Web Push service for the tests: it records every request, checks the VAPID JWT (RFC 8292)
// and decrypts the aes128gcm body (RFC 8188 / RFC 8291) with the subscription's private key and auth
// secret, which only the test (the "browser") holds.
import { createDecipheriv, createECDH, createHmac, createPublicKey, randomBytes, verify, type ECDH } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';

export interface PushRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Date.now() when it arrived. */
  at: number;
}

/** A subscriber's keys as a browser makes them: an ECDH P-256 pair and a 16-byte auth secret. */
export function subscriberKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return { ecdh, auth, p256dh: ecdh.getPublicKey().toString('base64url'), authText: auth.toString('base64url') };
}

const hmac = (key: Buffer, data: Buffer) => createHmac('sha256', key).update(data).digest();

/** Decrypts an aes128gcm Web Push body (one record) with the subscriber's keys; throws when it does not decrypt. */
export function decryptPush(body: Buffer, ecdh: ECDH, auth: Buffer): string {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  const serverPublic = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  if (recordSize < 18 || idLength !== 65) throw new Error(`bad header: rs ${recordSize}, idlen ${idLength}`);
  const shared = ecdh.computeSecret(serverPublic);
  // RFC 8291 section 3.4: the input keying material from the ECDH secret, the auth secret and both public keys.
  const prkKey = hmac(auth, shared);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), ecdh.getPublicKey(), serverPublic, Buffer.from([1])]);
  const ikm = hmac(prkKey, keyInfo);
  // RFC 8188 section 2.2 and 2.3: the content encryption key and nonce.
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01')).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01')).subarray(0, 12);
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const plain = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 0x02, then padding zeros.
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end--;
  if (plain[end] !== 2) throw new Error('no last-record delimiter');
  return plain.subarray(0, end).toString('utf8');
}

/**
 * Checks `Authorization: vapid t=<jwt>, k=<key>`: an ES256 JWT signed by k, its aud the endpoint's origin,
 * its exp in the future (at most 24 h). Returns the claims.
 */
export function verifyVapid(authorization: string | undefined, endpointOrigin: string, expectedKey: string) {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization ?? '');
  if (!match) throw new Error(`not a vapid authorization: ${authorization}`);
  const [, jwt, k] = match as unknown as [string, string, string];
  if (k !== expectedKey) throw new Error('k is not the VAPID public key the page gave');
  const [head, claims, signature] = jwt.split('.') as [string, string, string];
  const header = JSON.parse(Buffer.from(head, 'base64url').toString());
  if (header.alg !== 'ES256') throw new Error(`alg ${header.alg}`);
  const point = Buffer.from(k, 'base64url');
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') },
    format: 'jwk',
  });
  const ok = verify('sha256', Buffer.from(`${head}.${claims}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  if (!ok) throw new Error('the VAPID JWT signature does not verify');
  const payload = JSON.parse(Buffer.from(claims, 'base64url').toString()) as { aud: string; exp: number; sub: string };
  const now = Date.now() / 1000;
  if (payload.aud !== endpointOrigin) throw new Error(`aud ${payload.aud}`);
  if (!(payload.exp > now && payload.exp <= now + 24 * 3600 + 60)) throw new Error(`exp ${payload.exp}`);
  if (!/^(mailto:|https:)/.test(payload.sub)) throw new Error(`sub ${payload.sub}`);
  return payload;
}

/** The push service on 127.0.0.1; `status` answers each request (201 Created, as push services do). */
export async function startPushService(status: (req: PushRequest) => number = () => 201) {
  const received: PushRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      received.push(entry);
      res.writeHead(status(entry)).end();
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const port = (server.address() as { port: number }).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    endpoint: (id: string) => `http://127.0.0.1:${port}/push/${id}`,
    received,
    close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
  };
}
