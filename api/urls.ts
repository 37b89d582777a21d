import type { Config } from './config.js';

/** The public pages of a store; stable, so integrations may store them. */
export function storeUrls(config: Pick<Config, 'publicUrl'>, slug: string) {
  const base = `${config.publicUrl}/s/${encodeURIComponent(slug)}`;
  return { url: base, tracking_url: `${base}/track` };
}

/** The public tracking page of one order; its id is unguessable and the page still asks for the contact. */
export function orderTrackingPageUrl(config: Pick<Config, 'publicUrl'>, orderId: string) {
  return `${config.publicUrl}/track/${orderId}`;
}
