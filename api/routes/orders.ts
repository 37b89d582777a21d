import type { FastifyInstance } from 'fastify';
import { notFound } from '../../contract/errors.js';
import { defineRoute } from '../route.js';
import {
  ArchiveResult,
  BatchBody,
  BatchResult,
  OrderEnvelope,
  OrderIdParams,
  OrderInput,
  OrderList,
  OrderListQuery,
  OrderPatch,
  UpsertResult,
} from '../../contract/schemas/orders.js';
import { quickOrderInput } from '../../contract/schemas/order-input-quick.js';
import { archiveOrder, patchOrder } from '../../services/orders/change.js';
import { findOrderRow, listOrders } from '../../services/orders/read.js';
import { presentOrder } from '../../services/orders/present.js';
import { orderEditorFor, orderSenderFor } from '../../services/orders/sender.js';
import { upsertOrder, upsertOrders } from '../../services/orders/upsert.js';

/** The order exchange: GET/POST /orders, POST /orders/batch, GET/PATCH/DELETE /orders/{id}. */
export async function orderRoutes(app: FastifyInstance) {
  const publicUrl = app.config.publicUrl;

  defineRoute(
    app,
    'GET /orders',
    {
      operationId: 'listOrders',
      summary: 'List orders, newest first',
      tag: 'Orders',
      query: OrderListQuery,
      responses: { 200: { description: 'A page of orders', schema: OrderList } },
    },
    async (request) => listOrders(app.orm.em, request.principal!.storeId, request.query, publicUrl),
  );

  defineRoute(
    app,
    'POST /orders',
    {
      operationId: 'upsertOrder',
      summary: 'Create or update an order by external_id',
      description:
        'Safe to retry. 201 when created; 200 when updated, unchanged or skipped. The source comes from the key, never the body.',
      tag: 'Orders',
      body: OrderInput,
      quickBody: quickOrderInput,
      responses: {
        201: { description: 'Created', schema: UpsertResult },
        200: { description: 'Updated, unchanged or skipped', schema: UpsertResult },
      },
    },
    async (request, reply) => {
      const sender = orderSenderFor(request.principal!, publicUrl);
      const result = await upsertOrder(app.orm.em, sender, request.body);
      return reply.status(result.action === 'created' ? 201 : 200).send(result);
    },
  );

  defineRoute(
    app,
    'POST /orders/batch',
    {
      operationId: 'upsertOrderBatch',
      summary: 'Create or update 1 to 50 orders',
      description:
        'One result per order, in input order; one bad order never fails the batch. With backfill true no webhook, push or chat message is sent.',
      tag: 'Orders',
      body: BatchBody,
      responses: { 200: { description: 'One result per order', schema: BatchResult } },
    },
    async (request) => {
      const sender = orderSenderFor(request.principal!, publicUrl);
      const outcomes = await upsertOrders(app.orm.em, sender, request.body.orders, request.body.backfill);
      return {
        results: outcomes.map((o) =>
          o.ok
            ? {
                external_id: o.externalId,
                ok: true,
                action: o.result.action,
                ...(o.result.order ? { id: o.result.order.id } : {}),
                ...(o.result.warning ? { warning: o.result.warning } : {}),
              }
            : { external_id: o.externalId, ok: false, error: o.message },
        ),
      };
    },
  );

  defineRoute(
    app,
    'GET /orders/{id}',
    {
      operationId: 'getOrder',
      summary: 'One order by its id',
      description: 'To find an order by its outside id use GET /orders?external_id=.',
      tag: 'Orders',
      params: OrderIdParams,
      responses: { 200: { description: 'The order', schema: OrderEnvelope } },
      errors: ['not_found'],
    },
    async (request) => {
      const row = await findOrderRow(app.orm.em, request.principal!.storeId, request.params.id);
      if (!row) throw notFound('order');
      return { order: presentOrder(row, publicUrl) };
    },
  );

  defineRoute(
    app,
    'PATCH /orders/{id}',
    {
      operationId: 'patchOrder',
      summary: 'Change status, tracking or comment',
      description:
        'Status moves along the transitions of docs/orders.md. Cancelling an order of platform_a or platform_b needs that order’s own connection key (409 otherwise). Any key with orders:write may otherwise change any order of its store, another connected shop’s key included (it gets the 409 for that cancel).',
      tag: 'Orders',
      params: OrderIdParams,
      body: OrderPatch,
      responses: { 200: { description: 'The changed order', schema: OrderEnvelope } },
      errors: ['not_found', 'conflict'],
    },
    async (request) => ({
      order: await patchOrder(app.orm.em, orderEditorFor(request.principal!, publicUrl), request.params.id, request.body),
    }),
  );

  defineRoute(
    app,
    'DELETE /orders/{id}',
    {
      operationId: 'archiveOrder',
      summary: 'Archive an order',
      description:
        'Orders are never hard-deleted; an archived order drops out of GET /orders unless include_archived=true. Any key with orders:write archives any order of its store, a connection key included.',
      tag: 'Orders',
      params: OrderIdParams,
      responses: { 200: { description: 'Archived', schema: ArchiveResult } },
      errors: ['not_found'],
    },
    async (request) => archiveOrder(app.orm.em, orderEditorFor(request.principal!, publicUrl), request.params.id),
  );
}
