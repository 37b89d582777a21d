import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { isKnownOrigin } from '../../services/auth/keys.js';
import { ApiError } from '../../contract/errors.js';

const EXPOSED = 'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After';

/**
 * CORS for publishable keys. A preflight carries no key, so it is allowed when some live publishable key
 * lists the origin; the real request is then checked against its own key's list by the auth plugin.
 */
export const corsPlugin = fp(async (app: FastifyInstance) => {
  app.options('/api/v1/*', async (request, reply) => {
    const origin = request.headers.origin;
    if (typeof origin !== 'string' || !(await isKnownOrigin(app.orm.em, origin))) {
      throw new ApiError('forbidden', 'This website is not on the allowed list of any publishable key.');
    }
    return reply
      .status(204)
      .header('access-control-allow-origin', origin)
      .header('access-control-allow-methods', 'GET, POST, OPTIONS')
      .header('access-control-allow-headers', 'Authorization, X-Api-Key, Content-Type, X-Store-Commerce-Client')
      .header('access-control-max-age', '600')
      .header('vary', 'Origin')
      .send();
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const origin = request.headers.origin;
    const principal = request.principal;
    if (typeof origin === 'string' && principal?.kind === 'publishable' && principal.origins.includes(origin)) {
      reply.header('access-control-allow-origin', origin).header('access-control-expose-headers', EXPOSED).header('vary', 'Origin');
    }
    return payload;
  });
});
