import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hashKey, isWellFormedKey } from '../../domain/api-keys.js';
import { ANONYMOUS_PER_IP, isOverLimit, RATE_LIMITS, rateLimitState, type RateLimitState } from '../../domain/rate-limits.js';
import type { Access } from '../access.js';
import type { Principal } from '../../contract/principal.js';
import { countAnonymous, findKeyAndCount } from '../../services/auth/keys.js';
import { isBrowserRequest, keyFromHeaders, keyInUrlRefusal } from '../credentials.js';
import { ApiError } from '../../contract/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    rateLimit?: RateLimitState;
  }
  interface FastifyContextConfig {
    /** Set on every /api/v1 route from the endpoint table. */
    access?: Access;
    /** Health probes: never counted against a rate limit. */
    unmetered?: boolean;
  }
}

/** Authenticates and meters every request before its body is read, per the spec's Authentication and Limits. */
export const authPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    if (config.unmetered) return;
    const access = config.access;
    const keyInUrl = access ? keyInUrlRefusal(request) : undefined;
    if (!access || access.keys === 'none' || keyInUrl) {
      // A refused key in the URL is a failed-key request: it counts against the client IP like the others.
      await meterAnonymous(app, request);
      if (keyInUrl) throw keyInUrl;
      return;
    }
    const key = keyFromHeaders(request);
    if (!key || !isWellFormedKey(key)) {
      await meterAnonymous(app, request);
      throw new ApiError(
        'unauthorized',
        key ? 'This API key is not valid.' : 'An API key is required: send it as Authorization: Bearer <key>.',
      );
    }
    const hit = await findKeyAndCount(app.orm.em, hashKey(key), request.ip);
    if (!hit) {
      await meterAnonymous(app, request);
      throw new ApiError('unauthorized', 'This API key is not valid or has been revoked.');
    }
    const { principal } = hit;
    const limits = RATE_LIMITS[principal.plan];
    const counters =
      principal.kind === 'publishable'
        ? [
            { limit: limits.publishable, count: hit.keyCount },
            { limit: limits.publishableVisitorIp, count: hit.visitorCount ?? 0 },
          ]
        : [{ limit: limits.secret, count: hit.keyCount }];
    request.rateLimit = rateLimitState(hit.resetAt, ...counters);
    request.principal = principal;
    if (isOverLimit(...counters)) throw rateLimited(hit.resetAt);
    authorize(request, principal, access);
  });
});

/** Keyless requests and failed keys count against the client IP, which also slows key guessing. */
async function meterAnonymous(app: FastifyInstance, request: FastifyRequest) {
  const { count, resetAt } = await countAnonymous(app.orm.em, request.ip);
  const counter = { limit: ANONYMOUS_PER_IP, count };
  request.rateLimit = rateLimitState(resetAt, counter);
  if (isOverLimit(counter)) throw rateLimited(resetAt);
}

function rateLimited(resetAt: number): ApiError {
  const retryAfter = Math.max(1, resetAt - Math.floor(Date.now() / 1000));
  return new ApiError('rate_limited', `Too many requests; retry in ${retryAfter} seconds.`, undefined, {
    'retry-after': String(retryAfter),
  });
}

/** The 403 rules: browser use, allowed websites, the route's key kind, then the permission. */
function authorize(request: FastifyRequest, principal: Principal, access: Access): void {
  const origin = request.headers.origin;
  if (principal.kind !== 'publishable' && isBrowserRequest(request)) {
    throw new ApiError('forbidden', 'Secret keys must never be used from a browser; use a publishable key there.');
  }
  if (principal.kind === 'publishable' && typeof origin === 'string' && !principal.origins.includes(origin)) {
    throw new ApiError('forbidden', `This publishable key is not allowed on ${origin}; add the website to the key's allowed list.`);
  }
  const kindOk =
    access.keys === 'any' ||
    access.keys === 'secret_or_publishable' ||
    (access.keys === 'secret' && principal.kind !== 'publishable') ||
    (access.keys === 'connection' && principal.connectionId !== null);
  if (!kindOk) {
    const wanted = { secret: 'a secret key', connection: 'a connection key' }[access.keys as 'secret' | 'connection'];
    throw new ApiError('forbidden', `This route needs ${wanted}.`);
  }
  if (access.permission && !principal.scopes.includes(access.permission)) {
    throw new ApiError('forbidden', `This key lacks the ${access.permission} permission.`);
  }
}
