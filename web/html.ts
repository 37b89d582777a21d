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
@media (max-width:520px){th,td{font-size:.9rem}main{padding:.75rem}}
main:has(>.dash){max-width:1080px}.dash-narrow{max-width:560px;margin:0 auto}.dash-store{margin:.75rem 0 0;font-weight:600}
.dash-bar{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;font-size:.9rem;padding-bottom:.5rem;border-bottom:1px solid var(--line)}
.dash-inline{display:inline-flex;gap:.4rem;align-items:center;margin:0}.dash-inline select{width:auto;padding:.3rem}
.dash-tabs{display:flex;flex-wrap:wrap;gap:.25rem;margin:.25rem 0 .5rem}.dash-tabs a{padding:.35rem .7rem;border-radius:6px;text-decoration:none;color:var(--accent)}.dash-tabs a[aria-current]{background:var(--accent);color:#fff}
.dash .dash-small{margin-top:0;padding:.3rem .7rem;font-size:.85rem}.dash .dash-plain{background:#fff;color:var(--accent);border:1px solid var(--line)}.dash .dash-danger{background:var(--bad)}
.dash-check{font-weight:400;display:flex;gap:.5rem;align-items:flex-start;margin:.35rem 0}.dash-check input{width:auto;margin-top:.3rem}
.dash fieldset{border:1px solid var(--line);border-radius:6px;margin:.75rem 0;padding:.5rem .75rem}.dash form{margin-bottom:0}
.dash .mono,.dash-secret input{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;word-break:break-all}
.dash-secret{display:flex;gap:.5rem}.dash-secret button{margin-top:0}.dash-once{border-color:var(--ok);background:#f0faf3}
.dash-scroll{overflow-x:auto}.dash-compact td,.dash-compact th{font-size:.85rem}.dash-paging{display:flex;gap:1rem}.dash-list li{margin:.3rem 0}
.dash-tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(140px,1fr));gap:.75rem;margin-bottom:1rem}.dash-tile{display:flex;flex-direction:column;text-decoration:none;color:inherit;margin:0}.dash-tile strong{font-size:1.6rem}
.dash-filters{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:.25rem .75rem;align-items:end}.dash-filters label{margin-top:0}
.dash-status{display:inline-block;padding:.05rem .5rem;border-radius:999px;background:#eef3fb;font-size:.85rem}.dash-url{font-size:1rem;word-break:break-all}
footer.badge{max-width:720px;margin:1.5rem auto;padding:0 1rem;text-align:center;font-size:.85rem}footer.badge a{color:var(--muted)}
.dash-actions{display:flex;flex-wrap:wrap;gap:.5rem;margin:.5rem 0}.dash-field-error{color:var(--bad);margin:.2rem 0 0;font-size:.9rem}.dash [aria-invalid=true]{border-color:var(--bad)}.dash-empty{padding:1rem;border:1px dashed var(--line);border-radius:8px;background:#fff}
.dash-shop-url{font-size:1.3rem;font-weight:700;margin:.25rem 0}.dash .card>:first-child{margin-top:0}.dash-sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}`;

/**
 * A whole page: mobile viewport, the small stylesheet, no script; the web app manifest link when given (the
 * dashboard); with badgeUrl, the free plan's "Tracking by Store Commerce" footer linking there.
 */
export function page(title: string, body: SafeHtml, opts: { heading?: string; manifest?: string; badgeUrl?: string } = {}): string {
  const app = opts.manifest
    ? html`<link rel="manifest" href="${opts.manifest}"><meta name="theme-color" content="#0b63ce"><link rel="icon" href="/dashboard/icon-192.png"><link rel="apple-touch-icon" href="/dashboard/icon-192.png">`
    : '';
  const badge = opts.badgeUrl
    ? html`<footer class="badge"><a href="${opts.badgeUrl}" rel="noopener" data-badge>Tracking by Store Commerce</a></footer>`
    : '';
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${title}</title>${app}<style>${raw(STYLE)}</style></head>
<body><header class="site"><strong>${opts.heading ?? 'Store Commerce'}</strong></header><main>${body}</main>${badge}</body></html>`.value;
}

/** Headers for every HTML page: no script may run, forms post only to us, nobody frames us. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
