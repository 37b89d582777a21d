// The public URLs the API returns and the pages live at; every one starts with PUBLIC_URL (CONTRACT.md).

/** What the URL builders need of the configuration. */
export interface PublicOrigin {
  publicUrl: string;
}

/** The public pages of a store; stable, so integrations may store them. */
export function storeUrls(origin: PublicOrigin, slug: string) {
  const base = `${origin.publicUrl}/s/${encodeURIComponent(slug)}`;
  return { url: base, tracking_url: `${base}/track` };
}

/** The public tracking page of one order; its id is unguessable and the page still asks for the contact. */
export function orderTrackingPageUrl(origin: PublicOrigin, orderId: string) {
  return `${origin.publicUrl}/track/${orderId}`;
}

/** The storefront page of one product: {PUBLIC_URL}/s/{slug}/products/{id}. */
export function productPageUrl(origin: PublicOrigin, slug: string, productId: string): string {
  return `${storeUrls(origin, slug).url}/products/${productId}`;
}

/** The cart page of one checkout session: {PUBLIC_URL}/s/{slug}/cart/{token}. */
export function cartPageUrl(origin: PublicOrigin, slug: string, token: string): string {
  return `${storeUrls(origin, slug).url}/cart/${token}`;
}

/** Where the cart leads once the order is placed. */
export function cartConfirmationUrl(origin: PublicOrigin, slug: string, token: string): string {
  return `${cartPageUrl(origin, slug, token)}/confirmation`;
}
