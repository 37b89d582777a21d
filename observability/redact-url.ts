import { KEY_LIKE } from '../domain/api-keys.js';

// One home for what our logs and traces may keep of a URL: never its query (tracking contacts, connect
// `state`, return URLs), never a key pasted into a path, never a capability segment (a cart's token, a
// tracking page's order id: whoever has them sees the cart or the order).

const KEY_ANYWHERE = new RegExp(KEY_LIKE.source, 'gi');

/** The path of an inbound request with its query dropped and its credential-like segments replaced. */
export function redactPath(url: string): string {
  return (
    url
      .split('?')[0]!
      .split('#')[0]!
      .replace(KEY_ANYWHERE, '[redacted]')
      // A cart's token is its only credential.
      .replace(/\/cart\/[^/]+/, '/cart/[redacted]')
      // An order's tracking page id is its credential-like address: whoever has it sees the order.
      .replace(/\/track\/[^/]+/, '/track/[redacted]')
  );
}

/**
 * An outbound URL as traces may keep it: the origin only. Its path and query are the tenant's choice and
 * may be a capability (a Web Push endpoint's path is the subscription's secret, a webhook URL may carry a token).
 */
export function redactOutboundUrl(url: string): string {
  try {
    return `${new URL(url).origin}/[redacted]`;
  } catch {
    return '[redacted]';
  }
}
