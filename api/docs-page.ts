import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { serviceRoot } from '../config/build-info.js';

/** Where `npm run build` (and `npm run docs:build`) copy Redoc's standalone bundle: production has no dev dependencies. */
export const REDOC_COPY = 'dist/docs/redoc.standalone.js';

/** Redoc's standalone bundle (React and all, nothing fetched): the built copy, else the dev dependency's; null when neither is there. */
export function findRedocBundle(): string | null {
  const copy = join(serviceRoot(), REDOC_COPY);
  if (existsSync(copy)) return readFileSync(copy, 'utf8');
  try {
    return readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
  } catch {
    return null;
  }
}

/** The reference page and the Content-Security-Policy it needs (its two inline scripts by hash, nothing else). */
export interface ReferencePage {
  html: string;
  csp: string;
}

/** Redoc's options: tags in the side menu, success responses open, samples three levels deep, the theme of our pages. */
const REDOC_OPTIONS = {
  expandResponses: '200,201',
  jsonSampleExpandLevel: 3,
  hideDownloadButton: true,
  nativeScrollbars: true,
  showObjectSchemaExamples: true,
  theme: { typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' } } },
};

const REDOCLY_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The API reference as one self-contained HTML file: Redoc's bundle and its start inline, the document
 * as a JSON data block. Nothing is fetched from anywhere (no CDN, no fonts), so the same file works
 * served at /docs, opened from disk, or published anywhere.
 */
export function renderReferencePage(document: { info: { title: string } }, bundle: string): ReferencePage {
  // A data block is never run; `<` escaped so no text in the document can close the element.
  const data = JSON.stringify(document).replace(/</g, '\\u003c');
  const start = `Redoc.init(JSON.parse(document.getElementById('openapi').textContent), ${JSON.stringify(REDOC_OPTIONS)}, document.getElementById('redoc'));`;
  // `</script` escaped so the inline bundle cannot end early; its one remote fetch (the menu's small
  // Redocly logo, from a CDN) replaced by nothing: the page fetches from no host at all.
  const safeBundle = bundle.replace(/<\/script/gi, '<\\/script').replace(REDOCLY_LOGO, 'data:,');
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(safeBundle)} ${sha256(start)}`,
    // Redoc's styled-components write <style> elements; its search index runs in a Worker made from a Blob.
    "style-src 'unsafe-inline'",
    'worker-src blob:',
    'img-src data:',
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const title = esc(`${document.info.title} reference`);
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style>body{margin:0}</style></head>
<body><noscript><p>This reference needs JavaScript. The machine-readable document is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1).</p></noscript>
<div id="redoc"></div>
<script type="application/json" id="openapi">${data}</script>
<script>${safeBundle}</script>
<script>${start}</script>
</body></html>
`;
  return { html, csp };
}
