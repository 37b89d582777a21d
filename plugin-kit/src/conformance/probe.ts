import { randomUUID } from 'node:crypto';
import type { Update } from '../protocol.js';

export interface Answer {
  /** 0 when there was no HTTP answer (refused connection, reset, timeout). */
  status: number;
  json: unknown;
  text: string;
  /** The Location header of a redirect. */
  location: string | null;
  error?: string;
}

/** One request to the plugin under test; never throws, so one broken answer fails one rule only. */
export async function probe(
  url: string,
  init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string },
  timeoutMs: number,
): Promise<Answer> {
  try {
    const res = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    let json: unknown = undefined;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, json, text, location: res.headers.get('location') };
  } catch (err) {
    const e = err as Error & { cause?: Error };
    const why = e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (e.cause?.message ?? e.message);
    return { status: 0, json: undefined, text: '', location: null, error: why };
  }
}

/** A fresh update for the order `externalId`, shaped as the service sends it. */
export function sampleUpdate(externalId: string, comment: string): Update {
  const id = randomUUID();
  return {
    id,
    order_id: randomUUID(),
    external_id: externalId,
    number: null,
    status: 'shipped',
    tracking: { number: `CONF-${id.slice(0, 8)}`, courier: 'Conformance', url: null },
    tracking_page_url: `https://service.invalid/track/${id}`,
    comment,
    updated_at: new Date().toISOString(),
  };
}

/** The reply's applied ids and failed entries, or a reason it is not {applied: [...], failed: [...]}. */
export function readReply(answer: Answer): { applied: string[]; failed: { id: string; error: string }[] } | { bad: string } {
  if (answer.status === 0) return { bad: answer.error ?? 'no answer' };
  if (answer.status < 200 || answer.status > 299) return { bad: `answered ${answer.status} ${answer.text.slice(0, 120)}`.trim() };
  const body = answer.json as { applied?: unknown; failed?: unknown } | undefined;
  if (typeof body !== 'object' || body === null) return { bad: `the reply is not JSON: ${answer.text.slice(0, 120)}` };
  // The service tolerates a missing list, but the spec's reply has both: a plugin should not lean on the leniency.
  const { applied, failed } = body;
  const failedOk = Array.isArray(failed) && failed.every((f) => typeof f?.id === 'string' && typeof f?.error === 'string');
  if (!Array.isArray(applied) || !applied.every((a) => typeof a === 'string') || !failedOk)
    return { bad: `the reply is not {applied: [ids], failed: [{id, error}]}: ${answer.text.slice(0, 120)}` };
  return { applied, failed: failed as { id: string; error: string }[] };
}

/** Why an answer is not a refusal (a 4xx), or null when it is one. */
export function notRefused(answer: Answer, on5xx = 'a 5xx looks like a crash'): string | null {
  if (answer.status >= 400 && answer.status <= 499) return null;
  if (answer.status === 0) return `no answer (${answer.error}); a refusal is a 4xx`;
  if (answer.status < 400) return `answered ${answer.status}: accepted instead of refused`;
  return `answered ${answer.status}: a refusal is a 4xx (${on5xx})`;
}
