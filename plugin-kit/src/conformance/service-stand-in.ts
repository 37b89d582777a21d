import { createServer } from 'node:http';
import { readRawBody } from '../push.js';

export interface ServiceStandIn {
  /** The origin to configure the plugin under test with as its service URL (PUBLIC_URL). */
  url: string;
  /** The codes the plugin tried to exchange, in order. */
  exchanges: string[];
  /** Answers the next exchange with 200 and these credentials of another store, instead of refusing it. */
  acceptNext(result: StandInExchange): void;
  close(): Promise<void>;
}

/**
 * A stand-in for the service's POST /api/v1/connect/exchange on loopback: it records every code a plugin
 * tries to exchange and refuses them all with 400, as the service does with a code it never issued (or, once
 * after acceptNext, answers with another store's credentials).
 */
export interface StandInExchange {
  api_key: string;
  webhook_secret: string;
  connection_id: string;
  store: { id: string; name: string };
}

export async function startServiceStandIn(port = 0): Promise<ServiceStandIn> {
  const exchanges: string[] = [];
  let accept: StandInExchange | undefined;
  const server = createServer((req, res) => {
    void readRawBody(req, 64 * 1024)
      .then((raw) => {
        if (req.method !== 'POST' || !req.url?.endsWith('/connect/exchange')) return res.writeHead(404).end();
        let code = '';
        try {
          code = String((JSON.parse(raw) as { code?: unknown }).code ?? '');
        } catch {}
        exchanges.push(code);
        const result = accept;
        accept = undefined;
        if (result) return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { code: 'invalid_request', message: 'unknown connect code' } }));
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((ready, fail) => server.once('error', fail).listen(port, '127.0.0.1', ready));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    exchanges,
    acceptNext: (result) => void (accept = result),
    close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
  };
}
