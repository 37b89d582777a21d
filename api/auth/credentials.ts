import type { FastifyRequest } from 'fastify';
import { KEY_LIKE } from '../../domain/api-keys.js';
import { ApiError } from '../errors.js';

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

/** Refuses a request that carries a key in its URL: such keys end up in logs and browser history. */
export function refuseKeyInUrl(request: FastifyRequest): void {
  const query = request.url.indexOf('?');
  if (query < 0) return;
  const params = new URLSearchParams(request.url.slice(query + 1));
  for (const [name, value] of params) {
    if (KEY_LIKE.test(value) || KEY_LIKE.test(name) || /^(api_?key|access_token|key|token)$/i.test(name)) {
      throw new ApiError('invalid_request', 'API keys are accepted only in the Authorization or X-Api-Key header, never in the URL.', name);
    }
  }
}

/** The spec's browser rule: an Origin header together with Sec-Fetch-Mode. */
export function isBrowserRequest(request: FastifyRequest): boolean {
  return typeof request.headers.origin === 'string' && typeof request.headers['sec-fetch-mode'] === 'string';
}
