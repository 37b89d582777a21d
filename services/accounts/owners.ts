import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { hashPassword, needsRehash, passwordProblem, verifyNothing, verifyPassword } from '../../domain/password.js';

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

export type SignUpResult = { ok: true; owner: Owner } | { ok: false; message: string };

/** Creates an account with a scrypt-hashed password; refuses a bad email, a weak password or a taken address. */
export async function signUp(em: EntityManager, emailText: string, password: string): Promise<SignUpResult> {
  const email = normalizeEmail(emailText);
  const problem = emailProblem(email) ?? passwordProblem(password);
  if (problem) return { ok: false, message: problem };
  const hash = await hashPassword(password);
  const rows = await em.execute<Owner[]>(
    `insert into owners (id, email, password_hash) values (?, ?, ?) on conflict (email) do nothing returning id, email`,
    [randomUUID(), email, hash],
  );
  if (!rows[0]) return { ok: false, message: 'An account with this email already exists; sign in instead.' };
  return { ok: true, owner: rows[0] };
}

/** The account when email and password match (its hash renewed if made with older parameters); null otherwise, in about the same time whether the email exists or not. */
export async function checkCredentials(em: EntityManager, emailText: string, password: string): Promise<Owner | null> {
  const email = normalizeEmail(emailText);
  if (password.length > 1000) return null;
  const [row] = await em.execute<(Owner & { password_hash: string })[]>(`select id, email, password_hash from owners where email = ?`, [email]);
  if (!row) return verifyNothing(password).then(() => null);
  if (!(await verifyPassword(password, row.password_hash))) return null;
  // A hash of older, cheaper parameters is replaced now that the password is known (unless it changed meanwhile).
  if (needsRehash(row.password_hash)) {
    await em.execute(`update owners set password_hash = ? where id = ? and password_hash = ?`, [await hashPassword(password), row.id, row.password_hash]);
  }
  return { id: row.id, email: row.email };
}

/** The account with this email, or null. */
export async function findOwnerByEmail(em: EntityManager, emailText: string): Promise<Owner | null> {
  const [row] = await em.execute<Owner[]>(`select id, email from owners where email = ?`, [normalizeEmail(emailText)]);
  return row ?? null;
}
