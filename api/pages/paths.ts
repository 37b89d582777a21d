import type { Config } from '../config.js';
import { storeUrls } from '../urls.js';

/** The storefront page of one product: {PUBLIC_URL}/s/{slug}/products/{id}. */
export function productPageUrl(config: Pick<Config, 'publicUrl'>, slug: string, productId: string): string {
  return `${storeUrls(config, slug).url}/products/${productId}`;
}

/** The cart page of one checkout session: {PUBLIC_URL}/s/{slug}/cart/{token}. */
export function cartPageUrl(config: Pick<Config, 'publicUrl'>, slug: string, token: string): string {
  return `${storeUrls(config, slug).url}/cart/${token}`;
}

/** Where the cart leads once the order is placed. */
export function cartConfirmationUrl(config: Pick<Config, 'publicUrl'>, slug: string, token: string): string {
  return `${cartPageUrl(config, slug, token)}/confirmation`;
}
