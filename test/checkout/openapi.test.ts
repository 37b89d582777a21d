import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createTestApp, type TestApp } from '../helpers/app.js';

type Json = Record<string, any>;
let t: TestApp;
let doc: Json;
beforeAll(async () => {
  t = await createTestApp();
  doc = (await t.request({ method: 'GET', url: '/api/v1/openapi.json' })).json();
});
afterAll(() => t.close());

describe('the catalogue and checkout routes are in /api/v1/openapi.json', () => {
  const ours = [
    ['get', '/products', 'listProducts', 'ProductList'],
    ['get', '/products/{id}', 'getProduct', 'ProductEnvelope'],
    ['get', '/categories', 'listCategories', 'CategoryList'],
    ['post', '/external-products/batch', 'upsertExternalProducts', 'ExternalProductBatchResult'],
    ['delete', '/external-products/{external_id}', 'deleteExternalProduct', 'ExternalProductDeleteResult'],
    ['post', '/checkout/sessions', 'createCheckoutSession', 'CheckoutSession'],
  ] as const;
  for (const [method, path, operationId, schema] of ours) {
    it(`${method.toUpperCase()} ${path} is documented as ${operationId}, answering ${schema}`, () => {
      const op = doc.paths[path]?.[method];
      expect(op?.operationId).toBe(operationId);
      const success = Object.entries(op.responses as Json).find(([status]) => status.startsWith('2'))!;
      expect(success[1].content['application/json'].schema.$ref).toBe(`#/components/schemas/${schema}`);
    });
  }

  it('documents 422 for checkout and 404 for the catalogue, and the batch items resolve to ExternalProductInput', () => {
    expect(doc.paths['/checkout/sessions'].post.responses['422']).toBeDefined();
    expect(doc.paths['/products'].get.responses['404'].description).toMatch(/not_found/);
    expect(doc.components.schemas.ExternalProductInput.required).toEqual(expect.arrayContaining(['external_id', 'name']));
    expect(doc.components.schemas.Product.required).toEqual(
      expect.arrayContaining(['id', 'object', 'price', 'delivery_fee', 'in_stock', 'variants', 'url']),
    );
  });

  it('the whole document stays a valid OpenAPI 3.1 description', async () => {
    const result = await new Validator().validate(structuredClone(doc) as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
  });
});
