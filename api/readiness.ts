/** What /readyz reports: each dependency reachable or not. */
export interface Readiness {
  database: boolean;
  temporal: boolean;
}

/** How long one look at PostgreSQL and Temporal answers every /readyz that arrives meanwhile. */
export const READINESS_TTL_MS = 1000;

/**
 * One look at the dependencies serves every probe for ttlMs, and probes that arrive while a look is under
 * way wait for it: /readyz is anonymous, so a flood of it costs at most one query and one Temporal call
 * per ttlMs, never one per hit.
 */
export function sharedReadiness(look: () => Promise<Readiness>, ttlMs = READINESS_TTL_MS): () => Promise<Readiness> {
  let current: { at: number; answer: Promise<Readiness> } | undefined;
  return () => {
    const now = Date.now();
    if (!current || now - current.at >= ttlMs) {
      const answer = look();
      current = { at: now, answer };
      // A look still under way keeps serving its waiters; a finished one is fresh from when it finished.
      void answer.finally(() => {
        if (current?.answer === answer) current.at = Date.now();
      });
    }
    return current.answer;
  };
}
