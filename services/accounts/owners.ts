import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import { ApiError } from '../../contract/errors.js';
import { hashPassword, needsRehash, passwordProblem, verifyNothing, verifyPassword } from '../../domain/password.js';
import { passwordHashing } from './hashing.js';

export interface Owner {
  id: string;
  email: string;
}

/** The address an account is known by: trimmed and lower-case. */
export const normalizeEmail = (text: string) => text.trim().toLowerCase();

/** Why an email address is refused at sign-up, or null. Deliberately simple: one @, a dot in the domain, no spaces. */
export function emailProblem(email: string): string | null {
  if (email.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return 'Enter a valid email address.';
  return null;
}

/** Why a sign-up is refused for its form (a bad email or a weak password: 400 naming it), before anything is hashed. */
export function signUpProblem(emailText: string, password: string): ApiError | null {
  const badEmail = emailProblem(normalizeEmail(emailText));
  if (badEmail) return new ApiError('invalid_request', badEmail, 'email');
  const weak = passwordProblem(password);
  return weak ? new ApiError('invalid_request', weak, 'password') : null;
}

const taken = () => new ApiError('conflict', 'An account with this email already exists; sign in instead.', 'email');

/**
 * Creates an account with a scrypt-hashed password; a bad email or a weak password is 400 naming it, a
 * taken address 409. A taken address is found before hashing (it costs no hash); the hash goes through
 * the process's hashing gate (503 with Retry-After when it is full).
 */
export async function signUp(em: EntityManager, emailText: string, password: string): Promise<Owner> {
  const email = normalizeEmail(emailText);
  const problem = signUpProblem(email, password);
  if (problem) throw problem;
  if (await findOwnerByEmail(em, email)) throw taken();
  const hash = await passwordHashing.run(() => hashPassword(password));
  const rows = await executeBound<Owner>(
    em,
    `insert into owners (id, email, password_hash) values (?, ?, ?) on conflict (email) do nothing returning id, email`,
    [randomUUID(), email, hash],
  );
  if (!rows[0]) throw taken();
  return rows[0];
}

/** The account when email and password match (its hash renewed if made with older parameters); null otherwise, in about the same time whether the email exists or not. Hashes through the gate (503 when full). */
export async function checkCredentials(em: EntityManager, emailText: string, password: string): Promise<Owner | null> {
  const email = normalizeEmail(emailText);
  if (password.length > 1000) return null;
  const [row] = await executeBound<Owner & { password_hash: string }>(em, `select id, email, password_hash from owners where email = ?`, [
    email,
  ]);
  if (!row) return passwordHashing.run(() => verifyNothing(password)).then(() => null);
  if (!(await passwordHashing.run(() => verifyPassword(password, row.password_hash)))) return null;
  // A hash of older, cheaper parameters is replaced now that the password is known (unless it changed
  // meanwhile); when the gate is full it waits for the next sign-in rather than refuse this one.
  if (needsRehash(row.password_hash)) {
    const hash = await passwordHashing
      .run(() => hashPassword(password))
      .catch((err: unknown) => {
        if (err instanceof ApiError && err.code === 'unavailable') return null;
        throw err;
      });
    if (hash)
      await executeBound(em, `update owners set password_hash = ? where id = ? and password_hash = ?`, [hash, row.id, row.password_hash]);
  }
  return { id: row.id, email: row.email };
}

/** The account with this email, or null. */
export async function findOwnerByEmail(em: EntityManager, emailText: string): Promise<Owner | null> {
  const [row] = await executeBound<Owner>(em, `select id, email from owners where email = ?`, [normalizeEmail(emailText)]);
  return row ?? null;
}
