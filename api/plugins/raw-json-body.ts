import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact JSON text received, for signatures and audit. */
    rawBody?: string;
  }
}

/** Parses JSON with Fastify's safe parser while keeping the raw text. */
export const rawJsonBody = fp(async (app: FastifyInstance) => {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    request.rawBody = body as string;
    parse(request, body as string, done);
  });
});
