import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { readRawBody, ServiceClient, type Update } from '@store-commerce/plugin-kit';

/** The mistakes a broken plugin can be made to make, one flag each. */
export interface Mistakes {
  /** Never looks at X-Service-Timestamp's age. */
  noTimestampWindow?: boolean;
  /** Reports an update it has seen before as failed ("already applied") instead of applied again. */
  repeatsFail?: boolean;
  /** Exchanges whatever code comes back, without checking the state, and answers 502 when the exchange fails. */
  noStateCheck?: boolean;
  /** Exchanges the code first and checks the state after: answers 400 either way, but the code went to the service. */
  stateCheckedLate?: boolean;
  /** JSON.parse without a guard: a malformed signed body crashes the handler (500). */
  trustsJson?: boolean;
  /** Answers {ok: true} instead of {applied, failed}. */
  wrongReply?: boolean;
  /** Answers {applied} alone, without the failed list. */
  omitsFailed?: boolean;
  /** Checks the signature only when the header is there. */
  signatureOptional?: boolean;
  /** Takes the credentials of any successful exchange at once, replacing the ones it holds without asking. */
  replacesSilently?: boolean;
}

/** A plugin written from the spec with the given mistakes (no plugin-kit for the checks), on loopback. */
export async function startBrokenPlugin(firstSecret: string, mistakes: Mistakes, serviceUrl = 'http://127.0.0.1:9') {
  let secret = firstSecret;
  const seen = new Set<string>();
  const client = new ServiceClient(`${serviceUrl}/api/v1`);
  const server = createServer((req, res) => {
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const url = new URL(req.url ?? '/', 'http://plugin');
    if (url.pathname === '/start') {
      // Always the same state, and the return accepts it again and again.
      const query = new URLSearchParams({
        site_url: 'https://shop.example',
        return_url: 'https://shop.example/return',
        state: 'the-one-we-issued',
        name: 'Broken',
        currency: 'EUR',
        v: '0.1',
      });
      return res.writeHead(302, { location: `${serviceUrl}/connect/platform_a?${query}` }).end();
    }
    if (url.pathname === '/return') {
      const stateOk = url.searchParams.get('state') === 'the-one-we-issued';
      if (!mistakes.noStateCheck && !mistakes.stateCheckedLate && !stateOk) return send(400, { error: 'unknown state' });
      void client
        .exchange(url.searchParams.get('svc_code') ?? '', 'https://shop.example')
        .catch(() => ({ status: 0 }))
        .then((r) => {
          if (r.status === 200 && mistakes.replacesSilently && 'body' in r) secret = r.body.webhook_secret;
          return mistakes.stateCheckedLate && !stateOk ? send(400, { error: 'unknown state' }) : send(r.status === 200 ? 200 : 502, {});
        });
      return;
    }
    void readRawBody(req)
      .then((raw) => {
        const ts = req.headers['x-service-timestamp'] as string | undefined;
        const sig = req.headers['x-service-signature'] as string | undefined;
        if (!ts) return send(401, { error: 'no timestamp' });
        if (!mistakes.noTimestampWindow && Math.abs(Date.now() / 1000 - Number(ts)) > 300) return send(401, { error: 'stale' });
        const expected = `sha256=${createHmac('sha256', secret).update(`${ts}.${raw}`).digest('hex')}`;
        if ((sig || !mistakes.signatureOptional) && sig !== expected) return send(401, { error: 'bad signature' });
        let updates: Update[];
        if (mistakes.trustsJson) updates = (JSON.parse(raw) as { updates: Update[] }).updates;
        else {
          try {
            updates = (JSON.parse(raw) as { updates: Update[] }).updates;
          } catch {
            return send(400, { error: 'not JSON' });
          }
        }
        if (!Array.isArray(updates)) return mistakes.trustsJson ? res.destroy() : send(400, { error: 'no updates' });
        const applied: string[] = [];
        const failed: { id: string; error: string }[] = [];
        for (const u of updates) {
          if (!u.external_id.startsWith('conformance-order')) failed.push({ id: u.id, error: 'no such order' });
          else if (seen.has(u.id) && mistakes.repeatsFail) failed.push({ id: u.id, error: 'already applied' });
          else {
            seen.add(u.id);
            applied.push(u.id);
          }
        }
        send(200, mistakes.wrongReply ? { ok: true } : mistakes.omitsFailed ? { applied } : { applied, failed });
      })
      .catch(() => send(500, { error: 'crashed' }));
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    pushUrl: `${origin}/push`,
    returnUrl: `${origin}/return`,
    connectUrl: `${origin}/start`,
    close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
  };
}
