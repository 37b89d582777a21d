import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { formatMoment } from '../../domain/display.js';
import { html, page, PAGE_HEADERS, raw, type SafeHtml } from '../html.js';
import { PWA_SCRIPT, PWA_SCRIPT_HASH } from './pwa-scripts.js';

// One of the two scripts dashboard pages run (the other is the web-app script, pwa-scripts.ts): it reveals
// the copy buttons next to secrets shown once. Without JavaScript the buttons stay hidden and the
// read-only field can be selected and copied by hand.
const COPY_SCRIPT =
  "for(const b of document.querySelectorAll('button[data-copy]')){b.hidden=false;b.addEventListener('click',()=>{const i=document.getElementById(b.dataset.copy);i.select();(navigator.clipboard?navigator.clipboard.writeText(i.value):Promise.reject()).then(()=>{b.textContent='Copied';},()=>{b.textContent='Press Ctrl+C';});});}";
const COPY_SCRIPT_HASH = `'sha256-${createHash('sha256').update(COPY_SCRIPT).digest('base64')}'`;

export interface PageOptions {
  status?: number;
  /** Adds the copy script, allowed by its hash in this page's CSP only. */
  copyButtons?: boolean;
  /** Origins this page's forms may end up at (the connect page redirects to the shop, and CSP checks form redirects). */
  formTargets?: string[];
  /** Adds the web-app script (service worker registration, the notifications button), allowed by its hash. */
  pwaScript?: boolean;
}

/** Where every dashboard page finds its web app manifest (web/dashboard/pwa.ts). */
export const MANIFEST_PATH = '/dashboard/manifest.webmanifest';

/**
 * Sends a whole page with the page security headers (CSP widened only as the options say). Every
 * dashboard page links the web app manifest (manifest-src 'self'); scripts run only by their hashes.
 */
export function sendPage(reply: FastifyReply, title: string, body: SafeHtml, opts: PageOptions = {}) {
  let csp =
    PAGE_HEADERS['content-security-policy'].replace('img-src https: data:', "img-src 'self' https: data:") + "; manifest-src 'self'";
  if (opts.formTargets?.length) csp = csp.replace("form-action 'self'", `form-action 'self' ${opts.formTargets.join(' ')}`);
  const scripts: string[] = [];
  if (opts.copyButtons) {
    scripts.push(COPY_SCRIPT_HASH);
    body = html`${body}<script>${raw(COPY_SCRIPT)}</script>`;
  }
  if (opts.pwaScript) {
    scripts.push(PWA_SCRIPT_HASH);
    // The service worker is ours (/dashboard/sw.js); the subscription is posted to our own origin.
    csp += "; worker-src 'self'; connect-src 'self'";
    body = html`${body}<script>${raw(PWA_SCRIPT)}</script>`;
  }
  if (scripts.length) csp += `; script-src ${scripts.join(' ')}`;
  return reply
    .status(opts.status ?? 200)
    .headers({ ...PAGE_HEADERS, 'content-security-policy': csp })
    .send(page(title, body, { heading: 'Store Commerce', manifest: MANIFEST_PATH }));
}

/** A short page that says one thing (errors, refusals), with a way back. */
export function sendMessage(
  reply: FastifyReply,
  status: number,
  title: string,
  message: string,
  link = { href: '/dashboard', text: 'Back to the dashboard' },
) {
  return sendPage(
    reply,
    title,
    html`<div class="dash"><h1>${title}</h1><p class="errors">${message}</p><p><a href="${link.href}">${link.text}</a></p></div>`,
    { status },
  );
}

/** A value shown once (a key, a signing secret): read-only, selectable, with a copy button when scripts run. */
export function secretField(id: string, label: string, value: string): SafeHtml {
  return html`<label for="${id}">${label}</label>
<div class="dash-secret"><input id="${id}" class="mono" type="text" readonly value="${value}" autocomplete="off" spellcheck="false"><button type="button" data-copy="${id}" hidden>Copy</button></div>`;
}

/** A date and time as people read it, in the store's time zone (UTC outside a store); an em dash for none. */
export function when(value: Date | string | null | undefined, timeZone = 'UTC'): string {
  return formatMoment(value, timeZone);
}

/** A notice (ok) or an error box; nothing when there is no text. */
export function flash(kind: 'notice' | 'errors', text: string | null | undefined): SafeHtml {
  return text ? html`<p class="${kind}" role="${kind === 'errors' ? 'alert' : 'status'}">${text}</p>` : html``;
}

/** Form problems keyed by field name. */
export type FieldErrors = Record<string, string>;

/** A field's problem under its input; nothing when it has none. */
export function fieldError(errors: FieldErrors | undefined, name: string): SafeHtml {
  const text = errors?.[name];
  return text ? html`<p class="dash-field-error" id="e-${name}">${text}</p>` : html``;
}

/** The attributes that tie an input to its problem (aria-invalid, aria-describedby); none without one. */
export function invalidAttrs(errors: FieldErrors | undefined, name: string): SafeHtml {
  return errors?.[name] ? html` aria-invalid="true" aria-describedby="e-${name}"` : html``;
}

/** The summary above a form with problems. */
export const problemsSummary = (errors: FieldErrors) =>
  `Not saved: ${Object.keys(errors).length === 1 ? 'one field needs' : `${Object.keys(errors).length} fields need`} a change (shown below).`;
