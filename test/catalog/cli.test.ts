import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { api } from './fixtures.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the real CLI as `npm run admin` would, against the run's database and the test app's PUBLIC_URL. */
function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, DATABASE_URL: inject('databaseUrl'), PUBLIC_URL: 'http://127.0.0.1:3999' };
  return new Promise((done) => {
    execFile(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], { cwd: repoRoot, env }, (err, stdout, stderr) => {
      done({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr });
    });
  });
}

let t: TestApp;
let s: TestStore;
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { currency: 'MAD' });
});
afterAll(() => t.close());

describe('product create (CONTRACT.md)', () => {
  it('with --json prints exactly {product}: the API product object', async () => {
    const run = await admin(
      'product',
      'create',
      '--store',
      s.store.id,
      '--name',
      'Argan oil',
      '--price',
      '89.90',
      '--category',
      'Beauty',
      '--stock',
      '7',
      '--delivery-fee',
      '0',
      '--compare-at',
      '99.9',
      '--json',
    );
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(Object.keys(out)).toEqual(['product']);
    expect(out.product).toMatchObject({
      name: 'Argan oil',
      price: 89.9,
      compare_at_price: 99.9,
      delivery_fee: 0,
      stock: 7,
      category: 'Beauty',
      currency: 'MAD',
      in_stock: true,
      type: 'physical',
    });
    expect((await api(t, s.secret).get(`/products/${out.product.id}`)).json()).toEqual(out);
  });

  it('--archived creates it archived (not listed); a bad price or stock is a usage error (exit 2) naming the option', async () => {
    const archived = await admin('product', 'create', '--store', s.store.id, '--name', 'Old', '--price', '1', '--archived', '--json');
    expect(archived.code, archived.stderr).toBe(0);
    expect((await api(t, s.secret).get(`/products/${JSON.parse(archived.stdout).product.id}`)).statusCode).toBe(404);
    const badPrice = await admin('product', 'create', '--store', s.store.id, '--name', 'X', '--price', '1.23456', '--json');
    expect(badPrice.code).toBe(2);
    expect(badPrice.stdout).toBe('');
    expect(badPrice.stderr).toMatch(/--price .*4 decimals/);
    const badStock = await admin('product', 'create', '--store', s.store.id, '--name', 'X', '--price', '1', '--stock', '-1');
    expect(badStock.code).toBe(2);
    expect(badStock.stderr).toMatch(/--stock/);
    const noStore = await admin('product', 'create', '--store', crypto.randomUUID(), '--name', 'X', '--price', '1');
    expect(noStore.code).toBe(1);
    expect(noStore.stderr).toMatch(/no store/);
  });
});

describe('product import reads a JSON array, with a progress line every 100 products', () => {
  it('imports the good ones, lists the bad ones, and prints progress to stderr', async () => {
    const own = await createTestStore(t.orm);
    const products: unknown[] = Array.from({ length: 250 }, (_, i) => ({
      name: `Bulk ${i}`,
      price: (100 + i) / 100,
      category: i % 2 ? 'Odd' : 'Even',
    }));
    products[5] = { name: 'No price' };
    products[120] = { price: 3 };
    products[200] = { name: 'Bad variant', price: 1, variants: [{ options: { A: '1' } }, { options: { A: '1' } }] };
    const dir = mkdtempSync(join(tmpdir(), 'products-'));
    const file = join(dir, 'products.json');
    writeFileSync(file, JSON.stringify(products));
    const run = await admin('product', 'import', '--store', own.store.id, '--file', file, '--json');
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.imported).toBe(247);
    expect(out.failed.map((f: { index: number }) => f.index)).toEqual([5, 120, 200]);
    expect(out.failed[0]).toMatchObject({ name: 'No price', error: expect.stringMatching(/^price /) });
    expect(out.failed[2].error).toMatch(/same options/);
    const lines = run.stderr
      .trim()
      .split('\n')
      .filter((l) => /^(progress|done):/.test(l));
    expect(lines).toEqual([
      'progress: 100/250 read, 99 imported, 1 failed',
      'progress: 200/250 read, 198 imported, 2 failed',
      'done: 250/250 read, 247 imported, 3 failed',
    ]);
    const body = (await api(t, own.secret).get('/products?limit=1')).json();
    expect(body.data[0]).toMatchObject({ name: 'Bulk 249', price: 3.49 });
    expect((await api(t, own.secret).get('/categories')).json().data).toEqual(['Even', 'Odd']);
  });

  it('a file that is not a JSON array is an error (exit 1) and imports nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'products-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, '{"name": "not an array"}');
    const run = await admin('product', 'import', '--store', s.store.id, '--file', file, '--json');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/JSON array/);
  });
});
