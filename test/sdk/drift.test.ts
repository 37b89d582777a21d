// The checked-in SDK files are what `npm run sdk:generate` makes from the live document: CI fails when they drift.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSdkFiles } from '../../scripts/sdk/document.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const sdkDir = fileURLToPath(new URL('../../sdk/', import.meta.url));
const read = (path: string) => readFileSync(resolve(sdkDir, path), 'utf8');
const FIX = 'run `npm run sdk:generate` and commit sdk/openapi.json and sdk/src/schema.d.ts';

let t: TestApp;
let files: Awaited<ReturnType<typeof renderSdkFiles>>;
beforeAll(async () => {
  t = await createTestApp();
  files = await renderSdkFiles((await t.request({ method: 'GET', url: '/api/v1/openapi.json' })).json());
});
afterAll(() => t.close());

describe('the SDK is generated from the live /openapi.json', () => {
  it(`sdk/openapi.json is the live document (server address aside); if not, ${FIX}`, () => {
    expect(JSON.parse(read('openapi.json')), FIX).toEqual(JSON.parse(files.openapiJson));
  });

  it(`sdk/src/schema.d.ts is what openapi-typescript makes of it; if not, ${FIX}`, () => {
    expect(read('src/schema.d.ts') === files.schemaTs, FIX).toBe(true);
  });
});

describe('the browser entry stays free of Node modules', () => {
  it('nothing sdk/src/browser.ts imports, directly or through other files, is a node: module or a Node built-in', () => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const [, spec] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
        expect(spec, `${file} imports ${spec}`).not.toMatch(/^node:|^(crypto|fs|path|http|https|buffer|stream|os|url)$/);
        if (spec!.startsWith('.')) visit(resolve(dirname(file), spec!.replace(/\.js$/, '.ts')).replace(/schema\.ts$/, 'schema.d.ts'));
      }
    };
    visit(resolve(sdkDir, 'src/browser.ts'));
    expect([...seen].map((f) => f.slice(sdkDir.length)).sort()).toEqual(
      [
        'src/browser.ts',
        'src/catalogue.ts',
        'src/core.ts',
        'src/errors.ts',
        'src/pagination.ts',
        'src/retry.ts',
        'src/schema.d.ts',
        'src/version.ts',
      ].sort(),
    );
  });
});
