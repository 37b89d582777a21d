import type { LightMyRequestResponse } from 'fastify';
import { randomLoopbackIp, type TestApp } from '../helpers/app.js';

let counter = 0;
/** A unique email for a new test account. */
export const newEmail = (tag = 'owner') => `${tag}-${process.pid}-${Date.now().toString(36)}-${++counter}@example.com`;
export const PASSWORD = 'correct horse battery staple';

/** The first form token on a page. */
export const csrfOf = (body: string) => /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? null;

/** A browser stand-in over inject(): one client IP, a cookie jar, form posts. */
export class PageClient {
  readonly cookies = new Map<string, string>();
  constructor(
    readonly t: TestApp,
    readonly ip = randomLoopbackIp(),
  ) {}

  private keep(res: LightMyRequestResponse) {
    for (const c of res.cookies as { name: string; value: string; maxAge?: number }[]) {
      if (c.maxAge === 0 || c.value === '') this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    return res;
  }

  private get cookieHeader() {
    return [...this.cookies].map(([n, v]) => `${n}=${encodeURIComponent(v)}`).join('; ');
  }

  async get(url: string, headers: Record<string, string> = {}) {
    return this.keep(
      await this.t.app.inject({ method: 'GET', url, remoteAddress: this.ip, headers: { cookie: this.cookieHeader, ...headers } }),
    );
  }

  /** Posts a form; `_csrf` is taken from `from` (a page fetched first) unless the fields give one. */
  async post(url: string, fields: Record<string, string | string[]>, opts: { from?: string; headers?: Record<string, string> } = {}) {
    const form = new URLSearchParams();
    if (opts.from && !('_csrf' in fields)) form.set('_csrf', csrfOf((await this.get(opts.from)).body) ?? '');
    for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) form.append(k, one);
    return this.keep(
      await this.t.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.ip,
        headers: { cookie: this.cookieHeader, 'content-type': 'application/x-www-form-urlencoded', ...opts.headers },
        payload: form.toString(),
      }),
    );
  }

  /** Posts a multipart form (a file input), as a browser does; `_csrf` is taken from `from`. */
  async postMultipart(
    url: string,
    fields: Record<string, string>,
    files: Record<string, { name: string; type: string; text: string }>,
    from: string,
  ) {
    const form = new FormData();
    form.set('_csrf', csrfOf((await this.get(from)).body) ?? '');
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    for (const [k, f] of Object.entries(files)) form.set(k, new Blob([f.text], { type: f.type }), f.name);
    const encoded = new Request('http://local.invalid/', { method: 'POST', body: form });
    return this.keep(
      await this.t.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.ip,
        headers: { cookie: this.cookieHeader, 'content-type': encoded.headers.get('content-type')! },
        payload: Buffer.from(await encoded.arrayBuffer()),
      }),
    );
  }

  /** Creates an account and signs in with it. */
  async signUp(email = newEmail(), password = PASSWORD) {
    const res = await this.post('/dashboard/sign-up', { email, password }, { from: '/dashboard/sign-up' });
    if (res.statusCode !== 303) throw new Error(`sign-up failed: ${res.statusCode} ${res.body.slice(0, 500)}`);
    return email;
  }

  /** Creates a store from the dashboard; returns its id. */
  async createStore(name = `Shop ${++counter}`) {
    const res = await this.post('/dashboard/stores', { name, currency: 'EUR' }, { from: '/dashboard' });
    const id = /\/dashboard\/stores\/([0-9a-f-]{36})/.exec(res.headers.location as string)?.[1];
    if (res.statusCode !== 303 || !id) throw new Error(`store creation failed: ${res.statusCode} ${res.body.slice(0, 500)}`);
    return id;
  }
}
