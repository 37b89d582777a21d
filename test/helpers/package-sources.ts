// The two packages from their sources in every vitest project (their exports point at the built dist/, which
// tests do not need; test/plugin-kit/packaging.test.ts checks the built packages).
import { fileURLToPath } from 'node:url';

const src = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
export const PACKAGE_SOURCES = [
  { find: /^@store-commerce\/sdk$/, replacement: src('sdk/src/index.ts') },
  { find: /^@store-commerce\/sdk\/browser$/, replacement: src('sdk/src/browser.ts') },
  { find: /^@store-commerce\/plugin-kit$/, replacement: src('plugin-kit/src/index.ts') },
  { find: /^@store-commerce\/plugin-kit\/conformance$/, replacement: src('plugin-kit/src/conformance/index.ts') },
];
