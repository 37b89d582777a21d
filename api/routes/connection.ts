import type { FastifyInstance, FastifyRequest } from 'fastify';
import { defineRoute } from '../route.js';
import {
  ConnectExchange,
  ConnectExchangeResult,
  ConnectionEnvelope,
  Heartbeat,
  MAX_PULL,
  Ok,
  UpdateAck,
  UpdateAckResult,
  UpdateList,
  UpdatesQuery,
} from '../../contract/schemas/connections.js';
import { exchangeCode } from '../../services/connections/codes.js';
import { disconnect, recordHeartbeat } from '../../services/connections/connection.js';
import { connectedStore, findConnection, presentConnection } from '../../services/connections/present.js';
import { acknowledge, presentUpdate, waitingUpdates } from '../../services/connections/updates.js';
import { targetPolicy } from '../../config/env.js';

/** The plugin's side: POST /connect/exchange, /connect/disconnect, GET/PUT /connection, updates and their ack. */
export async function connectionRoutes(app: FastifyInstance) {
  const publicUrl = app.config.publicUrl;
  const envelope = async (connectionId: string) => {
    const row = (await findConnection(app.orm.em, connectionId))!;
    return { connection: await presentConnection(app.orm.em, row), store: await connectedStore(app.orm.em, row.store_id, publicUrl) };
  };
  const connectionOf = (request: FastifyRequest) => request.principal!.connectionId!;

  defineRoute(
    app,
    'POST /connect/exchange',
    {
      operationId: 'exchangeConnectCode',
      summary: 'Exchange a connect code for a connection key',
      description:
        'Server to server, no key. The code is single use, valid 10 minutes, and only for the approved shop host. Any failure is 400. Limited to 60 requests per minute per IP.',
      tag: 'Connection',
      body: ConnectExchange,
      responses: { 200: { description: 'The connection key, its signing secret and the store', schema: ConnectExchangeResult } },
    },
    async (request) =>
      exchangeCode(app.orm.em, { code: request.body.code, siteUrl: request.body.site_url, secretsKey: app.config.secretsKey!, publicUrl }),
  );

  defineRoute(
    app,
    'POST /connect/disconnect',
    {
      operationId: 'disconnect',
      summary: 'Disconnect this shop',
      description: 'The key stops working from the next request; pushes stop; orders already copied are kept.',
      tag: 'Connection',
      responses: { 200: { description: 'Disconnected', schema: Ok } },
    },
    async (request) => {
      await disconnect(app.orm.em, connectionOf(request));
      return { ok: true as const };
    },
  );

  defineRoute(
    app,
    'GET /connection',
    {
      operationId: 'getConnection',
      summary: 'This connection and its store',
      tag: 'Connection',
      responses: { 200: { description: 'The connection', schema: ConnectionEnvelope } },
    },
    async (request) => envelope(connectionOf(request)),
  );

  defineRoute(
    app,
    'PUT /connection',
    {
      operationId: 'heartbeat',
      summary: 'Heartbeat: plugin and platform versions, shop name, currency, site_url, push_url',
      description: 'A site_url whose host differs from the connected host is 409 and changes nothing: the plugin must then pause.',
      tag: 'Connection',
      body: Heartbeat,
      responses: { 200: { description: 'The connection', schema: ConnectionEnvelope } },
      errors: ['conflict'],
    },
    async (request) => {
      await recordHeartbeat(app.orm.em, connectionOf(request), request.body, {
        policy: targetPolicy(app.config),
        resolve: app.resolve,
      });
      return envelope(connectionOf(request));
    },
  );

  defineRoute(
    app,
    'GET /connection/updates',
    {
      operationId: 'pullUpdates',
      summary: 'Waiting updates, oldest first (pull fallback)',
      description: `A plugin calls it every 15 minutes, then acknowledges with POST /connection/updates/ack. limit is 1 to ${MAX_PULL}, default 50.`,
      tag: 'Connection',
      query: UpdatesQuery,
      responses: { 200: { description: 'Waiting updates', schema: UpdateList } },
    },
    async (request) => ({ updates: (await waitingUpdates(app.orm.em, connectionOf(request), request.query.limit)).map(presentUpdate) }),
  );

  defineRoute(
    app,
    'POST /connection/updates/ack',
    {
      operationId: 'ackUpdates',
      summary: 'Acknowledge applied and failed updates',
      description: 'Counts only ids of this connection that were waiting; acknowledged updates are never sent again.',
      tag: 'Connection',
      body: UpdateAck,
      responses: { 200: { description: 'How many were acknowledged', schema: UpdateAckResult } },
    },
    async (request) => ({ acknowledged: await acknowledge(app.orm.em, connectionOf(request), request.body) }),
  );
}
