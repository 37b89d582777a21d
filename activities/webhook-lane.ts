import type { Link } from '@opentelemetry/api';
import { Context } from '@temporalio/activity';
import { activeSpanLinks, inStoredTrace, markActiveSpanFailed, outsideTraces } from '../config/trace-context.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DeliveryQueue } from '../domain/delivery-queue.js';
import { openSecret } from '../domain/secret-box.js';
import { openingKeys } from '../config/env.js';
import { holdLane, releaseLane } from '../db/lanes.js';
import {
  claimDeliveries,
  loadPendingDeliveries,
  planStoreDeliveries,
  recordDeliveryResults,
  storeEventsWaiting,
  type AttemptOrigin,
  type AttemptResult,
  type ClaimedDelivery,
  type LaneDelivery,
} from '../services/webhooks/lane.js';
import { workflowIds, type LaneAttempt, type LaneOutcome, type WebhookLaneActivities } from '../workflows/definitions.js';
import type { ActivityDeps } from './deps.js';
import { keepAliveAgents } from '../services/outbound/send.js';
import { countDelivery, sendWebhook, webhookBody } from './webhook-send.js';

/** The tuning of a lane run; every figure is per store. */
export const LANE = {
  /** A slow or hanging endpoint holds at most this many attempts; a store at most perStore (10 endpoints × 4). */
  limits: { perEndpoint: 4, perStore: 40 },
  /** A run ends after this many attempts or this long, so its result (the history) stays small and slots rotate. */
  maxAttempts: 500,
  maxRunMs: 5 * 60_000,
  /** With nothing to send for this long, the run releases the lane and ends. */
  lingerMs: 2000,
  /** Looks for new events at least this often, in case a notification was lost. */
  pollMs: 1000,
  /** The lane counts as running for this long after each renewal (renewed every third of it). */
  leaseMs: 10_000,
  /** Events planned, and pending deliveries loaded, per statement. */
  batch: 1000,
};

/** The activity of a store's webhook lane. */
export function webhookLaneActivities(deps: ActivityDeps) {
  return {
    /**
     * Sends the store's waiting webhook deliveries until there is nothing left to send: plans new
     * events, claims each delivery before its one POST (so a retried run never sends one twice), keeps
     * each endpoint's events of an order in order, and holds at most the lane's limits in flight.
     */
    async sendLaneDeliveries(storeId: string): Promise<LaneOutcome> {
      const info = Context.current().info;
      const origin = {
        workflowId: info.workflowExecution?.workflowId ?? '',
        runId: info.workflowExecution?.runId ?? '',
        activityId: info.activityId,
      };
      // Each delivery is traced in its own order's trace, linked to this run's span (RunActivity, when traced).
      const links = activeSpanLinks();
      return outsideTraces(() => new LaneRun(deps, deps.orm.em.fork(), storeId, origin, links).run());
    },
  } satisfies WebhookLaneActivities;
}

class LaneRun {
  private readonly queue = new DeliveryQueue<LaneDelivery>(LANE.limits);
  private readonly secrets = new Map<string, string>();
  /** The keys that open endpoints' signing secrets (SECRETS_KEY, then SECRETS_KEY_PREVIOUS during a rotation). */
  private readonly openingKeys: Buffer[];
  private readonly attempts: LaneAttempt[] = [];
  private readonly unrecorded: AttemptResult[] = [];
  private cancelled = 0;
  private claimed = 0;
  /** Something happened (a send finished, events were committed): the loop looks again. */
  private poked = false;
  private wakeLoop: () => void = () => {};
  private planNeeded = true;
  private reloadNeeded = true;
  private recording: Promise<void> = Promise.resolve();
  private readonly laneId: string;
  /** Connections (and TLS sessions) reused across this run's POSTs. */
  private readonly agents = keepAliveAgents();

  constructor(
    private readonly deps: ActivityDeps,
    private readonly em: EntityManager,
    private readonly storeId: string,
    private readonly origin: AttemptOrigin,
    private readonly traceLinks: Link[] = [],
  ) {
    this.laneId = workflowIds.webhookLane(storeId);
    this.openingKeys = openingKeys(deps.config);
  }

  async run(): Promise<LaneOutcome> {
    const started = Date.now();
    const ctx = Context.current();
    await holdLane(this.em, this.laneId, LANE.leaseMs);
    const unsubscribe = this.deps.laneWakeups?.subscribe(this.laneId, () => ((this.planNeeded = true), this.poke())) ?? (() => {});
    // Renewing the lease doubles as the heartbeat that shows Temporal this worker is alive.
    const renew = setInterval(() => {
      ctx.heartbeat({ attempts: this.attempts.length, inFlight: this.queue.inFlight, waiting: this.queue.waiting });
      holdLane(this.em.fork(), this.laneId, LANE.leaseMs).catch(() => undefined);
    }, LANE.leaseMs / 3);
    let idleSince = Date.now();
    try {
      for (;;) {
        const atLimit = this.claimed >= LANE.maxAttempts || Date.now() - started >= LANE.maxRunMs;
        if (!atLimit) await this.fill();
        if (this.queue.inFlight > 0 || this.queue.waiting > 0) idleSince = Date.now();
        // At its limits the run ends still holding the lane, and says `more`: the workflow runs it again at
        // once, and that run gives the lane up properly (events that came meanwhile woke nobody).
        if (atLimit && this.queue.inFlight === 0) return await this.finish(true);
        if (
          !atLimit &&
          this.queue.inFlight === 0 &&
          this.queue.waiting === 0 &&
          !this.planNeeded &&
          Date.now() - idleSince >= LANE.lingerMs
        ) {
          await this.flush();
          await releaseLane(this.em, this.laneId);
          if (!(await storeEventsWaiting(this.em, this.storeId))) return await this.finish(false);
          await holdLane(this.em, this.laneId, LANE.leaseMs);
          this.planNeeded = true;
          continue;
        }
        // Wait for a send to finish, a notification, or the poll.
        if (!this.poked) {
          const polled = await new Promise<boolean>((woke) => {
            const timer = setTimeout(() => woke(true), LANE.pollMs);
            this.wakeLoop = () => (clearTimeout(timer), woke(false));
          });
          this.wakeLoop = () => {};
          if (polled) this.planNeeded = true;
        }
        this.poked = false;
      }
    } finally {
      clearInterval(renew);
      unsubscribe();
      this.agents.destroy();
      await this.flush().catch(() => undefined);
    }
  }

  /** Plans new events, loads what an earlier run left pending, then claims and starts what may go now. */
  private async fill(): Promise<void> {
    if (this.reloadNeeded && this.queue.waiting === 0 && this.queue.inFlight === 0) {
      const pending = await loadPendingDeliveries(this.em, this.storeId, LANE.batch);
      this.queue.add(pending);
      this.reloadNeeded = pending.length === LANE.batch;
    }
    if (this.planNeeded) {
      this.planNeeded = false;
      const planned = await planStoreDeliveries(this.em, this.storeId, LANE.batch);
      this.queue.add(planned);
      if (planned.length >= LANE.batch) this.planNeeded = true;
    }
    const ready = this.queue.take(LANE.maxAttempts - this.claimed);
    if (ready.length === 0) return;
    const claimed = new Map(
      (
        await claimDeliveries(
          this.em,
          ready.map((d) => d.deliveryId),
          this.origin,
        )
      ).map((c) => [c.id, c]),
    );
    const bodies = new Map<string, Buffer>();
    for (const c of claimed.values()) if (c.payload !== null) bodies.set(c.eventId, webhookBody(c, c.payload));
    for (const d of ready) {
      const c = claimed.get(d.deliveryId);
      if (!c) {
        this.cancelled++;
        countDelivery(this.deps.metrics, 'cancelled');
        this.queue.finished(d);
        continue;
      }
      this.claimed++;
      void this.attempt(d, c, bodies.get(c.eventId)!);
    }
  }

  /** One delivery's single attempt; its outcome is recorded with others in one statement. */
  private async attempt(d: LaneDelivery, c: ClaimedDelivery, body: Buffer): Promise<void> {
    let result: AttemptResult;
    try {
      const secret = this.secrets.get(c.secretSealed) ?? openSecret(this.openingKeys, c.secretSealed);
      this.secrets.set(c.secretSealed, secret);
      // In the trace of the request that wrote the event, linked to this lane run (which serves many orders).
      const r = await inStoredTrace(
        'webhook delivery',
        c.traceparent,
        {
          links: this.traceLinks,
          attributes: {
            'store_commerce.webhook.delivery_id': c.id,
            'store_commerce.webhook.event_id': c.eventId,
            'store_commerce.webhook.event_type': c.eventType,
            'store_commerce.webhook.endpoint_id': c.endpointId,
            'store_commerce.temporal.workflow_id': this.origin.workflowId,
            'store_commerce.temporal.activity_id': this.origin.activityId,
          },
        },
        async () => {
          const sent = await sendWebhook(c, body, secret, { ...this.deps, agents: this.agents });
          if (!sent.ok) markActiveSpanFailed(sent.error ?? `answered ${sent.status}`);
          return sent;
        },
      );
      result = { deliveryId: c.id, ok: r.ok, status: r.status, error: r.error, durationMs: r.durationMs };
    } catch (err) {
      result = { deliveryId: c.id, ok: false, status: null, error: `not sent: ${(err as Error).message}`, durationMs: 0 };
    }
    this.attempts.push({
      delivery: c.id,
      order: d.orderId,
      endpoint: d.endpointId,
      event: `${c.eventType} ${c.eventId}`,
      result: result.ok ? `delivered (${result.status})` : `failed: ${result.error}`,
    });
    countDelivery(this.deps.metrics, result.ok ? 'delivered' : 'failed', result.durationMs);
    this.unrecorded.push(result);
    this.queue.finished(d);
    this.scheduleFlush();
    this.poke();
  }

  private poke(): void {
    this.poked = true;
    this.wakeLoop();
  }

  private flushTimer: NodeJS.Timeout | undefined;
  /** Outcomes finishing close together are written in one statement. */
  private scheduleFlush(): void {
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush().catch(() => undefined);
    }, 5);
  }

  private flush(): Promise<void> {
    const batch = this.unrecorded.splice(0);
    // One write at a time, in order: a retry of a failed write keeps its place.
    this.recording = this.recording
      .then(() => recordDeliveryResults(this.em.fork(), batch))
      .catch(() => {
        this.unrecorded.unshift(...batch);
      });
    return this.recording;
  }

  private async finish(more: boolean): Promise<LaneOutcome> {
    // Outcomes that cannot be written after a few tries stay 'sending' and are settled by the worker's
    // sweep as cut off: never sent again either way.
    for (let tries = 0; tries < 3 && (tries === 0 || this.unrecorded.length); tries++) {
      if (tries) await new Promise((r) => setTimeout(r, 1000));
      await this.flush();
    }
    return { attempts: this.attempts, cancelled: this.cancelled, more: more || this.queue.waiting > 0 };
  }
}
