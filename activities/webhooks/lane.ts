import type { Link } from '@opentelemetry/api';
import { Context } from '@temporalio/activity';
import { activeSpanLinks, inStoredTrace, markActiveSpanFailed, outsideTraces } from '../../observability/trace-context.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { FairQueue } from '../../domain/delivery-queue.js';
import { EndpointBreakers, failureCounts, type BreakerSettings } from '../../domain/circuit-breaker.js';
import { openSecret } from '../../domain/secret-box.js';
import { openingKeys } from '../../config/env.js';
import { LaneLease, handOverToNextWorker } from '../lane-lease.js';
import {
  claimDeliveries,
  loadPendingDeliveries,
  loadShardPendingDeliveries,
  planAndClaimShardDeliveries,
  planShardDeliveries,
  planStoreDeliveries,
  recordDeliveryResults,
  shardEventsWaiting,
  storeEventsWaiting,
  type AttemptOrigin,
  type AttemptResult,
  type ClaimAsPlanned,
  type ClaimedDelivery,
  type LaneDelivery,
  type PlannedDelivery,
} from '../../services/webhooks/lane.js';
import { openCircuitsOfShard, openCircuitsOfStore, recordCircuitChange, type OpenCircuit } from '../../services/webhooks/circuit.js';
import { workflowIds } from '../../workflows/catalog.js';
import {
  type LaneAttempt,
  type LaneOutcome,
  type WebhookDispatchActivities,
  type WebhookDispatchInput,
  type WebhookLaneActivities,
} from '../../workflows/webhooks/definitions.js';
import type { ActivityDeps } from '../deps.js';
import { keepAliveAgents } from '../../services/outbound/send.js';
import { countDelivery, sendWebhook, webhookBody } from './send.js';

/** The tuning of a run of the old per-store lane (webhook-lane/<store id>), which still serves running lanes. */
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

/** The tuning of a shard dispatcher's run (its idle end and circuit breaker come from the config). */
export const DISPATCH = {
  /** Per store and per endpoint as in a lane; `total` in flight for the whole shard (sockets are cheap). */
  limits: { perEndpoint: 4, perStore: 40, total: 800 },
  /** A run ends after this many attempts or this long (its workflow runs the next at once). */
  maxAttempts: 5000,
  maxRunMs: 5 * 60_000,
  pollMs: 1000,
  leaseMs: 10_000,
  batch: 1000,
  /** The run's result lists this many attempts; the delivery rows name the run of every attempt. */
  resultAttempts: 500,
};

/** What a run serves: one store (the old lane) or one shard of stores (a dispatcher). */
interface RunScope {
  /** The lease key and NOTIFY payload (db/lanes.ts): the workflow id writers wake. */
  laneId: string;
  plan(em: EntityManager, limit: number): Promise<LaneDelivery[]>;
  /** Plans and claims in one statement (a dispatcher's run with nothing queued); without it, plan then claim. */
  planAndClaim?(em: EntityManager, limit: number, claim: ClaimAsPlanned): Promise<PlannedDelivery[]>;
  loadPending(em: EntityManager, limit: number): Promise<LaneDelivery[]>;
  eventsWaiting(em: EntityManager): Promise<boolean>;
  /** The endpoints whose circuit an earlier run left open: this run starts with them open. */
  openCircuits(em: EntityManager): Promise<OpenCircuit[]>;
}

interface RunTuning {
  limits: { perEndpoint: number; perStore: number; total: number };
  maxAttempts: number;
  maxRunMs: number;
  lingerMs: number;
  pollMs: number;
  leaseMs: number;
  batch: number;
  breaker: BreakerSettings;
  /** Deliveries waiting longer than this behind an open circuit are settled unsent. */
  circuitMaxWaitMs: number;
}

/**
 * How long a finished attempt's outcome waits for others before they are written together. A small
 * store's deliveries finish one by one (receivers answer in tens of ms): written at once, each cost
 * PostgreSQL a statement and a commit of its own. A crash in this window leaves the attempts
 * 'sending', settled by the sweep as cut off: never sent again either way.
 */
const RESULT_FLUSH_MS = 100;

/** The error text of a delivery settled unsent behind an open circuit (docs/webhooks.md). */
export const CIRCUIT_OPEN_ERROR = 'not sent: endpoint unreachable, circuit open';

/** The activities of the webhook dispatchers and of the old per-store lanes. */
export function webhookLaneActivities(deps: ActivityDeps) {
  const dispatch = deps.config.webhookDispatch;
  const breaker = { failures: dispatch.circuitFailures, coolDownMs: dispatch.circuitCoolDownMs };
  const originOf = (): AttemptOrigin => {
    const info = Context.current().info;
    return {
      workflowId: info.workflowExecution?.workflowId ?? '',
      runId: info.workflowExecution?.runId ?? '',
      activityId: info.activityId,
    };
  };
  return {
    /**
     * Sends the shard's waiting webhook deliveries, every store of it, until it has had nothing to send
     * for WEBHOOK_DISPATCH_IDLE_MS: plans new events, claims each delivery before its one POST (so a
     * retried run never sends one twice), keeps each endpoint's events of an order in order, serves
     * stores round-robin under per-store, per-endpoint and per-shard limits, and holds back an endpoint
     * whose circuit is open.
     */
    async sendShardDeliveries(input: WebhookDispatchInput): Promise<LaneOutcome> {
      const scope: RunScope = {
        laneId: workflowIds.webhookDispatch(input.shard, input.shards),
        plan: (em, limit) => planShardDeliveries(em, input, limit),
        planAndClaim: (em, limit, claim) => planAndClaimShardDeliveries(em, input, limit, claim),
        loadPending: (em, limit) => loadShardPendingDeliveries(em, input, limit),
        eventsWaiting: (em) => shardEventsWaiting(em, input),
        openCircuits: (em) => openCircuitsOfShard(em, input),
      };
      const tuning: RunTuning = { ...DISPATCH, lingerMs: dispatch.idleMs, breaker, circuitMaxWaitMs: dispatch.circuitMaxWaitMs };
      const origin = originOf();
      const links = activeSpanLinks();
      return outsideTraces(() => new LaneRun(deps, deps.orm.em.fork(), scope, tuning, origin, links).run());
    },
  } satisfies WebhookDispatchActivities;
}

/** The activity of the old per-store lane (webhook-lane/<store id>), kept for lanes still running. */
export function oldWebhookLaneActivities(deps: ActivityDeps) {
  const dispatch = deps.config.webhookDispatch;
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
      const scope: RunScope = {
        laneId: `webhook-lane/${storeId}`,
        plan: (em, limit) => planStoreDeliveries(em, storeId, limit),
        loadPending: (em, limit) => loadPendingDeliveries(em, storeId, limit),
        eventsWaiting: (em) => storeEventsWaiting(em, storeId),
        openCircuits: (em) => openCircuitsOfStore(em, storeId),
      };
      const tuning: RunTuning = {
        ...LANE,
        limits: { ...LANE.limits, total: LANE.limits.perStore },
        breaker: { failures: dispatch.circuitFailures, coolDownMs: dispatch.circuitCoolDownMs },
        circuitMaxWaitMs: dispatch.circuitMaxWaitMs,
      };
      // Each delivery is traced in its own order's trace, linked to this run's span (RunActivity, when traced).
      const links = activeSpanLinks();
      return outsideTraces(() => new LaneRun(deps, deps.orm.em.fork(), scope, tuning, origin, links).run());
    },
  } satisfies WebhookLaneActivities;
}

class LaneRun {
  private readonly breakers: EndpointBreakers;
  private readonly queue: FairQueue<LaneDelivery>;
  private circuitOpen = 0;
  private made = 0;
  private readonly secrets = new Map<string, string>();
  /** Deliveries the planning statement claimed, with their bodies, until the queue hands them out (at once). */
  private readonly claimedAsPlanned = new Map<string, { claimed: ClaimedDelivery; body: Buffer }>();
  /** The keys that open endpoints' signing secrets (SECRETS_KEY, then SECRETS_KEY_PREVIOUS during a rotation). */
  private readonly openingKeys: Buffer[];
  private readonly attempts: LaneAttempt[] = [];
  private readonly unrecorded: AttemptResult[] = [];
  private cancelled = 0;
  private claimed = 0;
  /** The lane's lease while the run holds it: its wake-ups, renewals and linger (activities/lane-lease.ts). */
  private lease: LaneLease | undefined;
  private planNeeded = true;
  private reloadNeeded = true;
  private recording: Promise<void> = Promise.resolve();
  /** Circuit changes kept on the endpoints' rows, one write at a time and in order (services/webhooks/circuit.ts). */
  private circuitWrites: Promise<void> = Promise.resolve();
  private readonly laneId: string;
  /** Connections (and TLS sessions) reused across this run's POSTs. */
  private readonly agents: ReturnType<typeof keepAliveAgents>;

  constructor(
    private readonly deps: ActivityDeps,
    private readonly em: EntityManager,
    private readonly scope: RunScope,
    private readonly tuning: RunTuning,
    private readonly origin: AttemptOrigin,
    private readonly traceLinks: Link[] = [],
  ) {
    this.laneId = scope.laneId;
    this.openingKeys = openingKeys(deps.config);
    this.breakers = new EndpointBreakers(tuning.breaker);
    this.queue = new FairQueue<LaneDelivery>(tuning.limits, (endpointId) => this.breakers.cap(endpointId, Date.now()));
    // As many idle connections to one host as the run may have sends in flight.
    this.agents = keepAliveAgents(tuning.limits.total);
  }

  async run(): Promise<LaneOutcome> {
    const started = Date.now();
    this.lease = await LaneLease.hold(this.deps, this.laneId, this.tuning.leaseMs, () => ({
      attempts: this.made,
      inFlight: this.queue.inFlight,
      waiting: this.queue.waiting,
      openCircuits: this.breakers.openEndpoints().slice(0, 50),
    }));
    const lease = this.lease;
    let idleSince = Date.now();
    try {
      for (const open of await this.scope.openCircuits(this.em)) this.breakers.restoreOpen(open.endpointId, open.failedAt.getTime());
      for (;;) {
        // The worker stopping ends the run like its limits do: in-flight sends finish, nothing new starts;
        // then the run hands over to a retry of itself, which the next worker takes at its first poll.
        const atLimit = lease.ending || this.claimed >= this.tuning.maxAttempts || Date.now() - started >= this.tuning.maxRunMs;
        if (!atLimit) await this.fill();
        if (this.queue.inFlight > 0 || this.queue.waiting > 0) idleSince = Date.now();
        // At its limits the run ends still holding the lane, and says `more`: the workflow runs it again at
        // once, and that run gives the lane up properly (events that came meanwhile woke nobody).
        if (atLimit && this.queue.inFlight === 0) {
          const outcome = await this.finish(true);
          if (lease.workerStopping) throw handOverToNextWorker();
          return outcome;
        }
        if (
          !atLimit &&
          this.queue.inFlight === 0 &&
          this.queue.waiting === 0 &&
          !this.planNeeded &&
          Date.now() - idleSince >= this.tuning.lingerMs
        ) {
          await this.flush();
          if (await lease.lingerEnd(() => this.scope.eventsWaiting(this.em))) return await this.finish(false);
          this.planNeeded = true;
          continue;
        }
        // Wait for a send to finish, a notification, or the poll (which plans again, in case a notification was lost).
        const poked = await lease.wait(this.tuning.pollMs);
        if (!poked || lease.takeWakeUp()) this.planNeeded = true;
      }
    } finally {
      await lease.close();
      this.agents.destroy();
      await this.flush().catch(() => undefined);
    }
  }

  /** Plans new events, loads what an earlier run left pending, then claims and starts what may go now. */
  private async fill(): Promise<void> {
    if (this.reloadNeeded && this.queue.waiting === 0 && this.queue.inFlight === 0) {
      const pending = await this.scope.loadPending(this.em, this.tuning.batch);
      this.queue.add(pending);
      this.reloadNeeded = pending.length === this.tuning.batch;
    }
    if (this.planNeeded) {
      this.planNeeded = false;
      const planned = await this.plan();
      this.queue.add(planned);
      if (planned.length >= this.tuning.batch) this.planNeeded = true;
    }
    await this.settleBehindOpenCircuits();
    const ready = this.queue.take(this.tuning.maxAttempts - this.claimed);
    if (ready.length === 0) return;
    const toClaim = ready.filter((d) => !this.claimedAsPlanned.has(d.deliveryId));
    const claimed = new Map(
      (toClaim.length
        ? await claimDeliveries(
            this.em,
            toClaim.map((d) => d.deliveryId),
            this.origin,
          )
        : []
      ).map((c) => [c.id, c]),
    );
    const bodies = new Map<string, Buffer>();
    for (const c of claimed.values()) if (c.payload !== null) bodies.set(c.eventId, webhookBody(c, c.payload));
    for (const d of ready) {
      const asPlanned = this.claimedAsPlanned.get(d.deliveryId);
      if (asPlanned) {
        this.claimedAsPlanned.delete(d.deliveryId);
        this.claimed++;
        void this.attempt(d, asPlanned.claimed, asPlanned.body);
        continue;
      }
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

  /**
   * Plans new events. With nothing queued or in flight, the planning statement also claims each endpoint's
   * first delivery (services/webhooks/lane.ts planAndClaimShardDeliveries): an isolated order then costs one
   * statement before its POSTs, not two. It claims only what the queue hands out at once: every planned
   * delivery fits the run's room and each store's limit, and no endpoint's circuit is open.
   */
  private async plan(): Promise<LaneDelivery[]> {
    const { planAndClaim } = this.scope;
    if (!planAndClaim || this.queue.inFlight > 0 || this.queue.waiting > 0) return this.scope.plan(this.em, this.tuning.batch);
    const planned = await planAndClaim(this.em, this.tuning.batch, {
      room: Math.min(this.tuning.limits.total, this.tuning.maxAttempts - this.claimed),
      perStore: this.tuning.limits.perStore,
      skipEndpoints: this.breakers.openEndpoints(),
      by: this.origin,
    });
    const bodies = new Map<string, Buffer>();
    for (const { claimed } of planned) if (claimed?.payload != null) bodies.set(claimed.eventId, webhookBody(claimed, claimed.payload));
    for (const { claimed } of planned) if (claimed) this.claimedAsPlanned.set(claimed.id, { claimed, body: bodies.get(claimed.eventId)! });
    return planned;
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
    const change = this.breakers.record(d.endpointId, failureCounts(result.status, result.ok), Date.now());
    // Not written, the change is only lost to the dashboard and the next run (which finds the circuit again).
    if (change)
      this.circuitWrites = this.circuitWrites.then(() => recordCircuitChange(this.em.fork(), d.endpointId, change).catch(() => undefined));
    this.made++;
    if (this.attempts.length < DISPATCH.resultAttempts)
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

  /**
   * Settles, unsent, the deliveries that have waited longer than circuitMaxWaitMs behind an open circuit:
   * claimed (so no run sends them later) and recorded failed with CIRCUIT_OPEN_ERROR; an operator may
   * replay them as any failed delivery.
   */
  private async settleBehindOpenCircuits(): Promise<void> {
    const cutoff = Date.now() - this.tuning.circuitMaxWaitMs;
    const expired = this.breakers
      .openEndpoints()
      .flatMap((endpointId) => this.queue.drop(endpointId, (d) => d.createdAt.getTime() <= cutoff));
    if (expired.length === 0) return;
    const claimed = await claimDeliveries(
      this.em,
      expired.map((d) => d.deliveryId),
      this.origin,
    );
    for (const c of claimed) {
      this.unrecorded.push({ deliveryId: c.id, ok: false, status: null, error: CIRCUIT_OPEN_ERROR, durationMs: 0 });
      countDelivery(this.deps.metrics, 'circuit_open');
    }
    this.circuitOpen += claimed.length;
    this.cancelled += expired.length - claimed.length;
    this.scheduleFlush();
  }

  private pokePending = false;
  /**
   * A send finished: the loop looks again, once for all the sends that finish in the same turn of the
   * event loop (under load many answers arrive together; one claim statement then serves them all).
   */
  private poke(): void {
    if (this.pokePending) return;
    this.pokePending = true;
    setImmediate(() => {
      this.pokePending = false;
      this.lease?.poke();
    });
  }

  private flushTimer: NodeJS.Timeout | undefined;
  /** Outcomes finishing within RESULT_FLUSH_MS of each other are written in one statement. */
  private scheduleFlush(): void {
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush().catch(() => undefined);
    }, RESULT_FLUSH_MS);
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
    await this.circuitWrites;
    return {
      attempts: this.attempts,
      made: this.made,
      circuitOpen: this.circuitOpen,
      cancelled: this.cancelled,
      more: more || this.queue.waiting > 0,
    };
  }
}
