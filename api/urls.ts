import type { Config } from './config.js';

/** The public pages of a store; stable, so integrations may store them. */
export function storeUrls(config: Pick<Config, 'publicUrl'>, slug: string) {
  const base = `${config.publicUrl}/s/${encodeURIComponent(slug)}`;
  return { url: base, tracking_url: `${base}/track` };
}

/** The public tracking page of one order. */
export function orderTrackingPageUrl(config: Pick<Config, 'publicUrl'>, slug: string, orderId: string) {
  return `${config.publicUrl}/s/${encodeURIComponent(slug)}/track/${orderId}`;
}
