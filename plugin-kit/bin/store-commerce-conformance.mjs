#!/usr/bin/env node
// Runs the built command (dist/) when there is one, else the TypeScript source through tsx.
import { existsSync } from 'node:fs';

const built = new URL('../dist/conformance/bin.js', import.meta.url);
if (existsSync(built)) await import(built.href);
else {
  const { tsImport } = await import('tsx/esm/api');
  await tsImport('../src/conformance/bin.ts', import.meta.url);
}
