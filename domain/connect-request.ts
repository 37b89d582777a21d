import { shopHost } from './shop-host.js';

export const CONNECT_PLATFORMS = ['platform_a', 'platform_b'] as const;
export type ConnectPlatform = (typeof CONNECT_PLATFORMS)[number];

/** The connect page's query (spec, Connection flow step 1), checked. */
export interface ConnectRequest {
  platform: ConnectPlatform;
  siteUrl: string;
  /** Lower-case host of site_url: what the code is bound to. */
  host: string;
  returnUrl: string;
  state: string;
  name: string | null;
  currency: string | null;
  version: string | null;
}

const MAX_URL = 2000;
const webUrl = (text: string): URL | null => {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password ? url : null;
  } catch {
    return null;
  }
};

/**
 * True when return_url is where the shop itself answers: site_url's host and port, never a downgrade
 * from https to http (the one-time svc_code travels in it), an upgrade to https on default ports allowed.
 */
export function isShopsOwnReturn(site: URL, back: URL): boolean {
  if (shopHost(back.href) !== shopHost(site.href)) return false;
  if (back.protocol === site.protocol) return back.port === site.port;
  return site.protocol === 'http:' && back.protocol === 'https:' && site.port === '' && back.port === '';
}

/**
 * Checks the connect page's parameters before anything else happens: a known platform, a web site_url,
 * a return_url on the same host as site_url, a state. Every problem is listed; nothing unchecked is ever
 * used as a redirect target. name, currency and v are optional hints (a malformed currency is dropped).
 */
export function parseConnectRequest(
  platform: string,
  get: (name: string) => string | null | undefined,
): { ok: true; request: ConnectRequest } | { ok: false; problems: string[]; returnTo: ConnectReturn | null } {
  const problems: string[] = [];
  if (!CONNECT_PLATFORMS.includes(platform as ConnectPlatform))
    problems.push(`“${platform.slice(0, 40)}” is not a platform this service connects (platform_a or platform_b).`);
  const siteText = get('site_url')?.trim() ?? '';
  const site = siteText && siteText.length <= MAX_URL ? webUrl(siteText) : null;
  const host = site ? shopHost(site.href) : null;
  if (!siteText) problems.push('site_url is missing: the plugin must send the shop’s address.');
  else if (!site || !host) problems.push('site_url is not an http(s) address.');
  const returnText = get('return_url')?.trim() ?? '';
  const back = returnText && returnText.length <= MAX_URL ? webUrl(returnText) : null;
  if (!returnText) problems.push('return_url is missing.');
  else if (!back) problems.push('return_url is not an http(s) address.');
  else if (host && site && !isShopsOwnReturn(site, back))
    problems.push('return_url must be on the same host as site_url, on its port, and https when site_url is https.');
  const state = get('state') ?? '';
  if (!state) problems.push('state is missing.');
  else if (state.length > 500) problems.push('state is too long (at most 500 characters).');
  if (problems.length) {
    // The failure goes back to the plugin only when return_url is proven the shop's own (same host as a
    // valid site_url): anything less would make this page an open redirect.
    const proven = back !== null && site !== null && host !== null && isShopsOwnReturn(site, back);
    const returnTo = proven ? { returnUrl: back.href, state: state && state.length <= 500 ? state : null } : null;
    return { ok: false, problems, returnTo };
  }
  const currency = get('currency')?.trim().toUpperCase() ?? '';
  const text = (name: string, max: number) => get(name)?.trim().slice(0, max) || null;
  return {
    ok: true,
    request: {
      platform: platform as ConnectPlatform,
      siteUrl: site!.href,
      host: host!,
      returnUrl: back!.href,
      state,
      name: text('name', 120),
      currency: /^[A-Z]{3}$/.test(currency) ? currency : null,
      version: text('v', 50),
    },
  };
}

/** Where the browser goes back to: a checked return_url, and the plugin's state (null when it sent none usable). */
export interface ConnectReturn {
  returnUrl: string;
  state: string | null;
}

/**
 * The svc_error codes the connect page sends back: the owner declined (access_denied), the picked store
 * is at its plan's limit of connected shops (plan_limit), or the request or the owner's form could not
 * be used (invalid_request).
 */
export const CONNECT_ERRORS = ['access_denied', 'plan_limit', 'invalid_request'] as const;
export type ConnectError = (typeof CONNECT_ERRORS)[number];

/** return_url with the outcome added (its own query kept): svc_code or svc_error, and state when there is one. */
export function connectReturnUrl(back: ConnectReturn, outcome: { code: string } | { error: ConnectError }): string {
  const url = new URL(back.returnUrl);
  if ('code' in outcome) url.searchParams.set('svc_code', outcome.code);
  else url.searchParams.set('svc_error', outcome.error);
  if (back.state !== null) url.searchParams.set('state', back.state);
  return url.href;
}
