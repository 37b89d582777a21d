/** Markup that is already safe; only html`` and raw() make it. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Escapes text for HTML content and quoted attributes. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** Template tag that escapes every interpolated value unless it is SafeHtml (arrays are joined). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => (out += render(value) + strings[i + 1]!));
  return new SafeHtml(out);
}

/** Trusted markup (never user input). */
export const raw = (markup: string) => new SafeHtml(markup);

const STYLE = `
:root{--fg:#1d1d1f;--muted:#6e6e73;--line:#d2d2d7;--accent:#0b63ce;--bad:#b3261e;--ok:#1b7f3b;--bg:#fbfbfd}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:720px;margin:0 auto;padding:1rem}header.site{padding:.75rem 1rem;border-bottom:1px solid var(--line);background:#fff}
h1{font-size:1.5rem;margin:.5rem 0 1rem}h2{font-size:1.15rem;margin:1.5rem 0 .5rem}.muted{color:var(--muted)}
table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:.4rem .3rem;border-bottom:1px solid var(--line);vertical-align:top}
label{display:block;margin:.6rem 0 .2rem;font-weight:600}input,select,textarea{width:100%;padding:.55rem;font:inherit;border:1px solid var(--line);border-radius:6px;background:#fff}
button,.button{display:inline-block;margin-top:1rem;padding:.65rem 1.1rem;font:inherit;font-weight:600;color:#fff;background:var(--accent);border:0;border-radius:6px;text-decoration:none;cursor:pointer}
.error{color:var(--bad)}.ok{color:var(--ok)}.card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:1rem;margin:1rem 0}
.notice{padding:.75rem 1rem;border-radius:6px;background:#fff4e5;border:1px solid #f5c77e}.errors{padding:.75rem 1rem;border-radius:6px;background:#fdecea;border:1px solid #f1aeb5}
ol.progress{display:flex;gap:.25rem;padding:0;list-style:none;flex-wrap:wrap}ol.progress li{flex:1;min-width:6rem;padding:.4rem;text-align:center;border-radius:4px;background:#eee;font-size:.85rem}
ol.progress li.done{background:#d7f0dd}ol.progress li.current{background:var(--accent);color:#fff}
@media (max-width:520px){th,td{font-size:.9rem}main{padding:.75rem}}`;

/** A whole page: mobile viewport, the small stylesheet, no script. */
export function page(title: string, body: SafeHtml, opts: { heading?: string } = {}): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${title}</title><style>${raw(STYLE)}</style></head>
<body><header class="site"><strong>${opts.heading ?? 'Store Commerce'}</strong></header><main>${body}</main></body></html>`.value;
}

/** Headers for every HTML page: no script may run, forms post only to us, nobody frames us. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
