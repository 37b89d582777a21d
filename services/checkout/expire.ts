import type { EntityManager } from '@mikro-orm/postgresql';

/** Marks an open session expired; a used (ordered) or already expired session is left as it is. True when it changed. */
export async function expireCheckoutSession(em: EntityManager, sessionId: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(`update checkout_sessions set status = 'expired' where id = ? and status = 'open' returning id`, [sessionId]);
  return rows.length > 0;
}
