import type { FastifyReply, FastifyRequest } from 'fastify';

/** The request's cookies by name (first one wins); malformed pairs are skipped. */
export function readCookies(request: FastifyRequest): Map<string, string> {
  const jar = new Map<string, string>();
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    if (jar.has(name)) continue;
    try {
      jar.set(name, decodeURIComponent(part.slice(eq + 1).trim()));
    } catch {
      // A value that is not valid percent-encoding is not one of ours.
    }
  }
  return jar;
}

/** Adds a Set-Cookie: HttpOnly, SameSite=Lax, Path=/, Secure when the service is served over https. */
export function setCookie(reply: FastifyReply, name: string, value: string, opts: { secure: boolean; maxAgeSeconds?: number }): void {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (opts.secure) parts.push('Secure');
  if (opts.maxAgeSeconds !== undefined) parts.push(`Max-Age=${opts.maxAgeSeconds}`);
  const previous = reply.getHeader('set-cookie');
  const list = previous === undefined ? [] : Array.isArray(previous) ? previous.map(String) : [String(previous)];
  reply.header('set-cookie', [...list, parts.join('; ')]);
}
