import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { ENDPOINTS, type Endpoint } from './access.js';
import type { ErrorCode } from '../contract/errors.js';
import { accessWords, errorResponses, successHeaders, type Tag } from './openapi.js';

type Schema = z.ZodType | undefined;
type Out<S extends Schema> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteSpec<B extends Schema, Q extends Schema, P extends Schema> {
  operationId: string;
  summary: string;
  description?: string;
  tag: Tag;
  body?: B;
  /**
   * A quicker reader of the body for its common shape: the schema's result, or undefined to let the schema
   * decide (contract/schemas/order-input-quick.ts). The schema stays what the document shows and what words errors.
   */
  quickBody?: (body: unknown) => Out<B> | undefined;
  query?: Q;
  params?: P;
  /** Success responses by status; the schema documents the body. */
  responses: Record<number, { description: string; schema: z.ZodType }>;
  /** Error codes beyond the ones every route of this access can give. */
  errors?: ErrorCode[];
}

export type RouteHandler<B extends Schema, Q extends Schema, P extends Schema> = (
  request: FastifyRequest<{ Body: Out<B>; Querystring: Out<Q>; Params: Out<P> }>,
  reply: FastifyReply,
) => Promise<unknown>;

/**
 * Registers one row of the endpoint table: the Fastify route with its zod validation and access rule,
 * and the same schemas in the OpenAPI document.
 */
export function defineRoute<B extends Schema = undefined, Q extends Schema = undefined, P extends Schema = undefined>(
  app: FastifyInstance,
  endpoint: Endpoint,
  spec: RouteSpec<B, Q, P>,
  handler: RouteHandler<B, Q, P>,
): void {
  const [method, path] = endpoint.split(' ') as [string, string];
  const access = ENDPOINTS[endpoint];
  app.withTypeProvider<ZodTypeProvider>().route({
    method: method as 'GET',
    url: `/api/v1${path.replace(/\{(\w+)\}/g, ':$1')}`,
    schema: {
      ...(spec.body ? { body: spec.body } : {}),
      ...(spec.query ? { querystring: spec.query } : {}),
      ...(spec.params ? { params: spec.params } : {}),
    },
    config: { access },
    ...(spec.quickBody ? { validatorCompiler: quickFirst(spec.quickBody) as never } : {}),
    handler: handler as never,
  });
  app.openapi.registry.registerPath({
    method: method.toLowerCase() as 'get',
    path,
    operationId: spec.operationId,
    summary: spec.summary,
    description: [spec.description, accessWords(access)].filter(Boolean).join('\n\n'),
    tags: [spec.tag],
    security: access.keys === 'none' ? [] : app.openapi.security,
    request: {
      ...(spec.body ? { body: { required: true, content: { 'application/json': { schema: spec.body } } } } : {}),
      ...(spec.query ? { query: spec.query as never } : {}),
      ...(spec.params ? { params: spec.params as never } : {}),
    },
    responses: {
      ...Object.fromEntries(
        Object.entries(spec.responses).map(([status, r]) => [
          status,
          { description: r.description, headers: successHeaders, content: { 'application/json': { schema: r.schema } } },
        ]),
      ),
      ...errorResponses(access, Boolean(spec.body), spec.errors ?? []),
    },
  });
}

/** The route's validator compiler: the body read by `quick` when it can, every other part (and the rest of bodies) by zod. */
function quickFirst(quick: (body: unknown) => unknown): FastifySchemaCompiler<z.ZodType> {
  return (route) => {
    const bySchema = validatorCompiler(route);
    if (route.httpPart !== 'body') return bySchema;
    return (data) => {
      const value = quick(data);
      return value === undefined ? bySchema(data) : { value };
    };
  };
}
