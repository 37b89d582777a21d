import type { FastifyInstance } from 'fastify';
import { cartPages } from './cart.js';
import { dashboardPages } from './dashboard/index.js';
import { storefrontPages } from './storefront.js';
import { trackingPages } from './tracking.js';

/**
 * The service's HTML pages, outside /api/v1: the storefront and cart, the public tracking pages, the
 * store owner's dashboard and the plugin connect page. Each group sets its own error pages; none uses
 * the API's keys or JSON envelope.
 */
export async function webPages(app: FastifyInstance) {
  await app.register(trackingPages);
  await app.register(storefrontPages);
  await app.register(cartPages);
  await app.register(dashboardPages);
}
