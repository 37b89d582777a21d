import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// scrypt is memory-hard: N=2^17, r=8, p=1 (OWASP's current figure) needs 128 MiB per hash, which makes
// guessing on GPUs costly. Hashes made with older parameters still verify (they travel with the hash)
// and are replaced on the next successful sign-in (needsRehash).
const PARAMS = { N: 2 ** 17, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
/** Passwords shorter than this are refused at sign-up. */
export const MIN_PASSWORD_LENGTH = 10;
/** Longer passwords are refused, so nobody can make us hash megabytes. */
export const MAX_PASSWORD_LENGTH = 200;

const derive = (password: string, salt: Buffer, params: { N: number; r: number; p: number }, length: number) =>
  new Promise<Buffer>((resolve, reject) => {
    // maxmem must exceed 128 * N * r bytes (128 MiB here); Node's default ceiling is 32 MiB.
    const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r };
    scrypt(password.normalize('NFKC'), salt, length, options, (err, key) => (err ? reject(err) : resolve(key)));
  });

/** A self-describing hash ("scrypt$N$r$p$salt$key", base64url): salt and parameters travel with it. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS, KEY_LENGTH);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** True only when the password matches the stored hash; compared in constant time; false for any malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (![params.N, params.r, params.p].every((v) => Number.isSafeInteger(v) && v > 0) || params.N > 2 ** 20) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), params, expected.length);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** True when a stored hash was made with other parameters than today's: hash the password again once it is known. */
export function needsRehash(stored: string): boolean {
  const [scheme, n, r, p] = stored.split('$');
  return scheme !== 'scrypt' || Number(n) !== PARAMS.N || Number(r) !== PARAMS.r || Number(p) !== PARAMS.p;
}

let dummy: Promise<string> | undefined;
/** Spends the time of one verification for an unknown account, so timing does not reveal which emails exist. */
export async function verifyNothing(password: string): Promise<false> {
  await verifyPassword(password, await (dummy ??= hashPassword('not a real password')));
  return false;
}

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `The password needs at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `The password may have at most ${MAX_PASSWORD_LENGTH} characters.`;
  return null;
}
