// `npm run docs:build [-- <file>]`: the API reference as one self-contained HTML file (Redoc and the
// document inline, nothing fetched), the same page /docs serves, written where anyone can publish it
// (default dist/docs/reference.html). Also copies Redoc's bundle to dist/docs/ for the production /docs.
// The document's server is PUBLIC_URL when set, else the local default.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REDOC_COPY, findRedocBundle, renderReferencePage } from '../api/docs-page.js';
import { buildLiveDocument } from './sdk/document.js';

const root = fileURLToPath(new URL('../', import.meta.url));
mkdirSync(resolve(root, dirname(REDOC_COPY)), { recursive: true });
copyFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), resolve(root, REDOC_COPY));
const out = resolve(process.argv[2] ?? resolve(root, 'dist/docs/reference.html'));
const document = (await buildLiveDocument(process.env.PUBLIC_URL)) as { info: { title: string } };
const page = renderReferencePage(document, findRedocBundle()!);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, page.html);
console.log(`[docs:build] ${out} (${(page.html.length / 1024).toFixed(0)} KiB); serve it with: Content-Security-Policy: ${page.csp}`);
