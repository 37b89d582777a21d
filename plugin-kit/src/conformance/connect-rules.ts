import { randomBytes } from 'node:crypto';
import type { Context, ConformanceOptions, Rule } from './context.js';
import { notRefused } from './probe.js';

/** A forged connect return is refused with a 4xx and, when the stand-in service watches, never exchanged. */
async function returnRefused(c: Context, query: Record<string, string>) {
  const why = notRefused(await c.returnProbe(query), 'a 5xx suggests the plugin went on to exchange the code, or crashed');
  if (why) return why;
  if (c.opts.standIn?.exchanges.includes(query.svc_code!))
    return 'refused, but only after POST /connect/exchange with the code: check the state first';
  return null;
}

/** The connect page the plugin sends the browser to, or why its start URL did not redirect there. */
async function connectPage(c: Context): Promise<URL | string> {
  const answer = await c.startConnect();
  if (answer.status < 300 || answer.status > 399 || !answer.location)
    return `the connect start URL answered ${answer.status || answer.error}, not a redirect to the service's connect page`;
  try {
    return new URL(answer.location, c.opts.connectUrl);
  } catch {
    return `the redirect's Location is not a URL: ${answer.location}`;
  }
}

const code = () => randomBytes(32).toString('base64url');
const need = (o: ConformanceOptions, flags: ('returnUrl' | 'connectUrl' | 'standIn' | 'auth')[]) => {
  const names = { returnUrl: '--return-url', connectUrl: '--connect-url', standIn: '--service-port', auth: '--cookie or --header' };
  const missing = flags.filter((f) => !o[f]).map((f) => names[f]);
  return missing.length ? `needs ${missing.join(' and ')}` : null;
};
const PARAMS = ['site_url', 'return_url', 'state', 'name', 'currency', 'v'];

/** The connect rules: the redirect to the connect page, and the state check on the return URL. */
export const CONNECT_RULES: Rule[] = [
  {
    rule: 'connect.url',
    title: 'the connect start redirects to /connect/{platform} with site_url, return_url on the same host, state, name, currency and v',
    notCheckable: (o) => need(o, ['connectUrl']),
    check: async (c) => {
      const page = await connectPage(c);
      if (typeof page === 'string') return page;
      if (!/\/connect\/(platform_a|platform_b)$/.test(page.pathname)) return `redirects to ${page.pathname}, not /connect/{platform}`;
      const missing = PARAMS.filter((p) => !page.searchParams.get(p));
      if (missing.length) return `the connect page's query lacks ${missing.join(', ')}`;
      const host = (u: string) => URL.parse(u)?.host;
      if (
        !host(page.searchParams.get('site_url')!) ||
        host(page.searchParams.get('return_url')!) !== host(page.searchParams.get('site_url')!)
      )
        return 'return_url is not on the same host as site_url';
      return null;
    },
  },
  {
    rule: 'connect.state-random',
    title: 'each connect start carries a new state of at least 128 bits (32 hex or 22 base64 characters)',
    notCheckable: (o) => need(o, ['connectUrl']),
    check: async (c) => {
      const pages = [await connectPage(c), await connectPage(c)];
      const states = pages.map((p) => (typeof p === 'string' ? null : p.searchParams.get('state')));
      if (!states[0] || !states[1]) return typeof pages[0] === 'string' ? pages[0] : 'no state in the connect page query';
      if (states[0] === states[1]) return `two starts carried the same state ${states[0]}`;
      if (states.some((s) => s!.length < 22)) return `the state ${states[0]} is too short to be 128 random bits`;
      return null;
    },
  },
  {
    rule: 'connect.unknown-state-refused',
    title: 'a connect return with a state the plugin never issued is refused with a 4xx (before any exchange)',
    notCheckable: (o) => need(o, ['returnUrl']),
    check: (c) => returnRefused(c, { svc_code: code(), state: randomBytes(16).toString('hex') }),
  },
  {
    rule: 'connect.missing-state-refused',
    title: 'a connect return without a state is refused with a 4xx',
    notCheckable: (o) => need(o, ['returnUrl']),
    check: (c) => returnRefused(c, { svc_code: code() }),
  },
  {
    rule: 'connect.start-authenticated',
    title: 'the connect start is refused (4xx, no redirect to the connect page) without a signed-in shop admin',
    notCheckable: (o) => need(o, ['connectUrl', 'auth']),
    check: async (c) => {
      const answer = await c.startConnect(false);
      if (answer.status >= 400 && answer.status <= 499) return null;
      const to = answer.location && URL.parse(answer.location, c.opts.connectUrl);
      if (to && /\/connect\/(platform_a|platform_b)$/.test(to.pathname))
        return 'without a session it redirects to the connect page: anyone can start connecting the shop';
      return answer.status >= 300 && answer.status <= 399 ? null : `answered ${answer.status || answer.error} without a session`;
    },
  },
  {
    rule: 'connect.state-bound-to-session',
    title: "a return carrying the admin's own fresh state but no admin session is refused with a 4xx (and not exchanged)",
    notCheckable: (o) => need(o, ['connectUrl', 'returnUrl', 'auth']),
    check: async (c) => {
      const page = await connectPage(c);
      if (typeof page === 'string') return page;
      const query = { svc_code: code(), state: page.searchParams.get('state') ?? '' };
      const why = notRefused(await c.returnProbe(query, false), 'a 5xx suggests the plugin went on to exchange the code');
      if (why) return `without the admin's session: ${why}`;
      if (c.opts.standIn?.exchanges.includes(query.svc_code)) return 'refused, but only after POST /connect/exchange with the code';
      return null;
    },
  },
  {
    rule: 'connect.no-silent-replace',
    title: "a completed connect to another store does not replace the plugin's credentials until the admin confirms the store's name",
    notCheckable: (o) => need(o, ['connectUrl', 'returnUrl', 'standIn', 'auth']),
    check: async (c) => {
      const page = await connectPage(c);
      if (typeof page === 'string') return page;
      const first = code();
      c.opts.standIn!.acceptNext({
        api_key: `svc_conformance_${randomBytes(8).toString('hex')}`,
        webhook_secret: `whsec_conformance_${randomBytes(16).toString('hex')}`,
        connection_id: '00000000-0000-4000-8000-000000000000',
        store: { id: '00000000-0000-4000-8000-000000000001', name: 'Conformance other store' },
      });
      const back = await c.returnProbe({ svc_code: first, state: page.searchParams.get('state') ?? '' });
      if (!c.opts.standIn!.exchanges.includes(first))
        return `the return did not reach the exchange (answered ${back.status || back.error})`;
      // The plugin must still hold the secret it had: a push signed with it is applied.
      const u = c.update('conformance: after a connect to another store');
      const still = c.appliedOnly(await c.push([u]), u.id);
      return still && `after the connect, a push signed with the earlier secret: ${still} (were the credentials replaced?)`;
    },
  },
  {
    rule: 'connect.state-single-use',
    title: "a return with the plugin's own state is exchanged once; the same state again is refused and not exchanged",
    notCheckable: (o) => need(o, ['connectUrl', 'returnUrl', 'standIn']),
    check: async (c) => {
      const page = await connectPage(c);
      if (typeof page === 'string') return page;
      const state = page.searchParams.get('state') ?? '';
      const first = code();
      await c.returnProbe({ svc_code: first, state });
      const exchanges = c.opts.standIn!.exchanges;
      if (!exchanges.includes(first))
        return "the return with the plugin's own state did not reach POST /connect/exchange on the stand-in (is the plugin's service URL the stand-in's?)";
      return returnRefused(c, { svc_code: code(), state });
    },
  },
];
