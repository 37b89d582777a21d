import type { FastifyRequest } from 'fastify';
import { KEY_LIKE } from '../domain/api-keys.js';
import { ApiError } from '../contract/errors.js';

/** The key from `Authorization: Bearer …` or `X-Api-Key: …`, or undefined when neither is sent. */
export function keyFromHeaders(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string' && authorization.trim() !== '') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization.trim());
    return match ? match[1] : authorization.trim();
  }
  const apiKey = request.headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim() !== '') return apiKey.trim();
  return undefined;
}

/**
 * The refusal of a key sent in the URL (a query parameter named like a key or any part shaped like one),
 * or undefined. Such keys end up in logs, proxies and browser history; param names the query parameter.
 */
export function keyInUrlRefusal(request: FastifyRequest): ApiError | undefined {
  const refuse = (param?: string) =>
    new ApiError('invalid_request', 'API keys are accepted only in the Authorization or X-Api-Key header, never in the URL.', param);
  const query = request.url.indexOf('?');
  const path = query < 0 ? request.url : request.url.slice(0, query);
  if (KEY_LIKE.test(path)) return refuse();
  if (query < 0) return undefined;
  const params = new URLSearchParams(request.url.slice(query + 1));
  for (const [name, value] of params) {
    if (KEY_LIKE.test(value) || KEY_LIKE.test(name) || /^(api_?key|access_token|key|token)$/i.test(name)) return refuse(name);
  }
  return undefined;
}

/** The spec's browser rule: an Origin header together with Sec-Fetch-Mode. */
export function isBrowserRequest(request: FastifyRequest): boolean {
  return typeof request.headers.origin === 'string' && typeof request.headers['sec-fetch-mode'] === 'string';
}
