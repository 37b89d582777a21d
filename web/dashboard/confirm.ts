import type { FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../html.js';
import { formOf } from './guard.js';
import { sendStorePage, storePath, type Tab } from './layout.js';
import { csrfField } from './session.js';

/** True when the form carries the confirmation page's answer; the first request (a GET, or a POST from a list) does not. */
export const isConfirmed = (request: FastifyRequest) => request.method === 'POST' && formOf(request).get('confirm') === 'yes';

export interface Confirmation {
  tab: Tab;
  /** The page heading, e.g. "Revoke this key?". */
  title: string;
  /** The item, as the owner knows it (a key's prefix and label, an endpoint's URL, a shop's name). */
  item: string;
  /** What happens, in a sentence. */
  consequence: string;
  /** The form's target (the same path, answered with confirm=yes). */
  action: string;
  button: string;
  /** Where "Cancel" leads (the store path's rest, e.g. /keys). */
  back: string;
}

/** "Are you sure?": the item by name, what the action does, a confirming POST (confirm=yes) and a way back. */
export function sendConfirmation(request: FastifyRequest, reply: FastifyReply, c: Confirmation) {
  const store = request.ownedStore!;
  const content = html`<div class="card dash-confirm"><p><strong>Are you sure?</strong> ${c.consequence}</p>
<p class="mono dash-url" id="confirm-item">${c.item}</p>
<form method="post" action="${c.action}">${csrfField(request, reply, 'session')}<input type="hidden" name="confirm" value="yes">
<button type="submit" class="dash-danger">${c.button}</button> <a href="${storePath(store.id, c.back)}">Cancel</a></form></div>`;
  return sendStorePage(request, reply, c.tab, c.title, content);
}
