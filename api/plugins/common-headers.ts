import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ANONYMOUS_PER_IP } from '../../domain/rate-limits.js';

/** Sets the headers the spec puts on every response, errors and unknown routes included. */
export function setCommonHeaders(request: FastifyRequest, reply: FastifyReply): void {
  const rate = request.rateLimit ?? {
    limit: ANONYMOUS_PER_IP,
    remaining: ANONYMOUS_PER_IP,
    resetAt: Math.floor(Date.now() / 60_000) * 60 + 60,
  };
  reply.header('x-request-id', request.id);
  reply.header('x-ratelimit-limit', String(rate.limit));
  reply.header('x-ratelimit-remaining', String(rate.remaining));
  reply.header('x-ratelimit-reset', String(rate.resetAt));
  reply.header('cache-control', 'no-store');
}

export const commonHeadersPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onSend', async (request, reply, payload) => {
    setCommonHeaders(request, reply);
    return payload;
  });
});
