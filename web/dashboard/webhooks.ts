import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ORDER_EVENT_TYPES } from '../../domain/order-events.js';
import { replayStoreDelivery } from '../../services/dashboard/scoped.js';
import { listDeliveries, REPLAY_BUDGET, type DeliveryView } from '../../services/webhooks/deliveries.js';
import { createEndpoint, deleteEndpoint, listEndpoints } from '../../services/webhooks/endpoints.js';
import { openCircuitsOfStore, type OpenCircuit } from '../../services/webhooks/circuit.js';
import { ApiError } from '../../contract/errors.js';
import { openingKeys } from '../../config/env.js';
import { openSecret } from '../../domain/secret-box.js';
import { inWords } from '../../domain/display.js';
import { sendWebhook } from '../../activities/webhooks/send.js';
import { reserveTestEvent, testDelivery, TEST_EVENT_TYPE, TEST_EVENTS_PER_MINUTE } from '../../services/webhooks/test-event.js';
import { html, type SafeHtml } from '../html.js';
import { formOf } from './guard.js';
import { sendStorePage, storePath } from './layout.js';
import { secretField, sendMessage, when } from './render.js';
import { isConfirmed, sendConfirmation } from './confirm.js';
import { csrfField } from './session.js';
import { targetPolicy } from '../../config/env.js';

type TestResult = { endpointId: string; ok: boolean; status: number | null; durationMs: number; error: string | null };

function testResult(r: TestResult): SafeHtml {
  return html`<p class="${r.ok ? 'notice' : 'errors'}" id="test-result" role="status">Test event (${TEST_EVENT_TYPE}): ${
    r.ok ? `delivered, answered ${r.status}` : `failed: ${r.error ?? `answered ${r.status}`}`
  } in ${r.durationMs} ms.</p>`;
}

type Params = { Params: { storeId: string; endpointId: string; deliveryId: string }; Querystring: { done?: string } };
const SHOWN_PER_ENDPOINT = 10;
const NOTICES: Record<string, string> = {
  deleted: 'The endpoint is deleted: nothing more is sent to it.',
  replayed: 'Sent again: the new attempt appears in the list within a few seconds.',
};

function deliveriesTable(request: FastifyRequest, reply: FastifyReply, rows: DeliveryView[]): SafeHtml {
  if (!rows.length)
    return html`<p class="muted">No deliveries yet: one is sent for every order event. Use “Send a test event” to try the endpoint now.</p>`;
  const store = request.ownedStore!;
  return html`<div class="dash-scroll"><table class="dash-compact"><thead><tr><th>When</th><th>Event</th><th>Result</th><th>Code</th><th>Time</th><th>Error</th><th></th></tr></thead><tbody>${rows.map(
    (d) => html`<tr><td>${when(d.created_at, store.time_zone)}${d.replay_of ? html`<br><span class="muted">sent again</span>` : ''}</td>
<td>${d.event_type}<br><a href="${storePath(store.id, `/orders/${d.order_id}`)}">order</a></td><td class="${d.status === 'delivered' ? 'ok' : d.status === 'failed' ? 'error' : ''}">${inWords(d.status)}</td>
<td>${d.response_status ?? '—'}</td><td>${d.duration_ms === null ? '—' : `${d.duration_ms} ms`}</td><td>${d.error ?? ''}</td>
<td><form method="post" action="${storePath(store.id, `/webhooks/deliveries/${d.id}/replay`)}">${csrfField(request, reply, 'session')}<button type="submit" class="dash-small">Send again</button></form></td></tr>`,
  )}</tbody></table></div>`;
}

/** An endpoint whose circuit is open (docs/webhooks.md): what the owner needs to know and do. */
function circuitNotice(request: FastifyRequest, open: OpenCircuit): SafeHtml {
  const { circuitCoolDownMs, circuitMaxWaitMs } = request.server.config.webhookDispatch;
  const zone = request.ownedStore!.time_zone;
  return html`<p class="errors" id="circuit-${open.endpointId}" role="status"><strong>Not answering</strong> since ${when(open.openSince, zone)} (last failed attempt ${when(open.failedAt, zone)}). New deliveries wait while one is tried every ${span(circuitCoolDownMs)} until it answers; those waiting longer than ${span(circuitMaxWaitMs)} are marked failed, and “Send again” sends any of them once it is back.</p>`;
}

const span = (ms: number) => (ms >= 120_000 ? `${Math.round(ms / 60_000)} minutes` : `${Math.round(ms / 1000)} seconds`);

async function webhooksPage(
  request: FastifyRequest,
  reply: FastifyReply,
  opts: {
    status?: number;
    error?: string | null;
    notice?: string | null;
    created?: { url: string; secret: string };
    url?: string;
    tested?: TestResult;
  } = {},
) {
  const store = request.ownedStore!;
  const em = request.server.orm.em;
  const [endpoints, deliveries, openCircuits] = await Promise.all([
    listEndpoints(em, store.id),
    listDeliveries(em, store.id, { limit: 200 }),
    openCircuitsOfStore(em, store.id),
  ]);
  const circuitOf = new Map(openCircuits.map((c) => [c.endpointId, c]));
  const list = endpoints.map(
    (
      e,
    ) => html`<section class="card"><h2 class="mono dash-url">${e.url}</h2><p class="muted">Events: ${e.events.join(', ')} · added ${when(e.created_at, store.time_zone)}</p>
${circuitOf.has(e.id) ? circuitNotice(request, circuitOf.get(e.id)!) : ''}${opts.tested?.endpointId === e.id ? testResult(opts.tested) : ''}
<div class="dash-actions"><form class="dash-inline" method="post" action="${storePath(store.id, `/webhooks/${e.id}/test`)}">${csrfField(request, reply, 'session')}<button type="submit" class="dash-small">Send a test event</button></form>
<form class="dash-inline" method="post" action="${storePath(store.id, `/webhooks/${e.id}/delete`)}">${csrfField(request, reply, 'session')}<button type="submit" class="dash-small dash-danger">Delete this endpoint</button></form></div>
<h3>Recent deliveries</h3>${deliveriesTable(request, reply, deliveries.filter((d) => d.endpoint_id === e.id).slice(0, SHOWN_PER_ENDPOINT))}</section>`,
  );
  const created = opts.created
    ? html`<div class="card dash-once"><p><strong>Endpoint added.</strong> Copy its signing secret now: it is shown only this once.</p>${secretField('new-secret', 'Signing secret', opts.created.secret)}</div>`
    : html``;
  const boxes = ['*', ...ORDER_EVENT_TYPES].map(
    (t) =>
      html`<label class="dash-check"><input type="checkbox" name="events" value="${t}"${t === '*' ? html` checked` : ''}> ${t === '*' ? 'every event (*)' : t}</label>`,
  );
  const form = html`<h2>Add an endpoint</h2><form method="post" action="${storePath(store.id, '/webhooks')}" class="card">${csrfField(request, reply, 'session')}
<label for="hook-url">URL (a public https address)</label><input id="hook-url" name="url" type="url" required maxlength="2000" value="${opts.url ?? ''}" placeholder="https://shop.example/hooks/store-commerce">
<fieldset><legend>Events</legend>${boxes}</fieldset><button type="submit">Add the endpoint</button></form>`;
  const content = html`${created}${endpoints.length ? list : html`<p class="dash-empty">No webhook endpoints yet. Add your server's address below to receive every order event, signed; then use “Send a test event” to check it.</p>`}${form}`;
  return sendStorePage(request, reply, 'webhooks', 'Webhooks', content, {
    status: opts.status ?? 200,
    error: opts.error ?? null,
    notice: opts.notice ?? null,
    copyButtons: !!opts.created,
  });
}

/** Webhooks: endpoints with their recent deliveries, add one (secret shown once), delete, and "send again". */
export async function webhookPages(app: FastifyInstance) {
  app.get<Params>('/stores/:storeId/webhooks', async (request, reply) =>
    webhooksPage(request, reply, { notice: NOTICES[request.query.done ?? ''] ?? null }),
  );

  app.post<Params>('/stores/:storeId/webhooks', async (request, reply) => {
    const form = formOf(request);
    const url = (form.get('url') ?? '').trim();
    const chosen = form.getAll('events').filter((e) => e === '*' || ORDER_EVENT_TYPES.includes(e as never));
    const events = chosen.length === 0 || chosen.includes('*') ? ['*'] : [...new Set(chosen)];
    try {
      const created = await createEndpoint(app.orm.em, {
        storeId: request.ownedStore!.id,
        url,
        events,
        secretsKey: app.config.secretsKey!,
        policy: targetPolicy(app.config),
        resolve: app.resolve,
      });
      return webhooksPage(request, reply, { created: { url: created.url, secret: created.secret } });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return webhooksPage(request, reply, { status: err.status, error: err.message, url });
    }
  });

  const remove = async (request: FastifyRequest<Params>, reply: FastifyReply) => {
    const store = request.ownedStore!;
    const notFound = () =>
      sendMessage(reply, 404, 'Not found', 'This store has no such webhook endpoint.', {
        href: storePath(store.id, '/webhooks'),
        text: 'Back to the webhooks',
      });
    if (!isConfirmed(request)) {
      const endpoint = (await listEndpoints(app.orm.em, store.id)).find((e) => e.id === request.params.endpointId);
      if (!endpoint) return notFound();
      return sendConfirmation(request, reply, {
        tab: 'webhooks',
        title: 'Delete this endpoint?',
        item: endpoint.url,
        consequence:
          'Nothing more is sent to this address, deliveries still waiting for it are cancelled, and its signing secret is gone for good.',
        action: storePath(store.id, `/webhooks/${endpoint.id}/delete`),
        button: 'Delete the endpoint',
        back: '/webhooks',
      });
    }
    try {
      await deleteEndpoint(app.orm.em, store.id, request.params.endpointId);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'not_found') return notFound();
      throw err;
    }
    return reply.redirect(storePath(store.id, '/webhooks?done=deleted'), 303);
  };
  app.get<Params>('/stores/:storeId/webhooks/:endpointId/delete', remove);
  app.post<Params>('/stores/:storeId/webhooks/:endpointId/delete', remove);

  // A signed test delivery through the same sender and address rules as order events, its result shown at once.
  app.post<Params>('/stores/:storeId/webhooks/:endpointId/test', async (request, reply) => {
    const store = request.ownedStore!;
    const test = await testDelivery(app.orm.em, store, request.params.endpointId);
    if (!test)
      return sendMessage(reply, 404, 'Not found', 'This store has no such webhook endpoint.', {
        href: storePath(store.id, '/webhooks'),
        text: 'Back to the webhooks',
      });
    const wait = await reserveTestEvent(app.orm.em, store.id);
    if (wait !== null) {
      reply.header('retry-after', String(wait));
      return webhooksPage(request, reply, {
        status: 429,
        error: `At most ${TEST_EVENTS_PER_MINUTE} test events a minute per store: try again in ${wait} s.`,
      });
    }
    const secret = openSecret(openingKeys(app.config), test.claimed.secretSealed);
    const result = await sendWebhook(test.claimed, test.body, secret, { config: app.config, resolve: app.resolve });
    return webhooksPage(request, reply, {
      tested: {
        endpointId: test.claimed.endpointId,
        ok: result.ok,
        status: result.status,
        durationMs: result.durationMs,
        error: result.error,
      },
    });
  });

  app.post<Params>('/stores/:storeId/webhooks/deliveries/:deliveryId/replay', async (request, reply) => {
    const store = request.ownedStore!;
    const replayed = await replayStoreDelivery(app.orm.em, store.id, request.params.deliveryId);
    if (!replayed)
      return sendMessage(reply, 404, 'Not found', 'This store has no such delivery, or its endpoint was deleted.', {
        href: storePath(store.id, '/webhooks'),
        text: 'Back to the webhooks',
      });
    if ('retryAfterSeconds' in replayed)
      return sendMessage(
        reply.header('retry-after', String(replayed.retryAfterSeconds)),
        429,
        'Sent again too often',
        `This store sent ${REPLAY_BUDGET.perStore} deliveries again in the last minute, its limit. Try again in ${replayed.retryAfterSeconds} s.`,
        { href: storePath(store.id, '/webhooks'), text: 'Back to the webhooks' },
      );
    return reply.redirect(storePath(store.id, '/webhooks?done=replayed'), 303);
  });
}
