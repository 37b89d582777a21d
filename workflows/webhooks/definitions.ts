// Pure: the contract of the webhook dispatchers, the old per-store lane and the replay of one delivery
// between producers (services, through the outbox), the workflows and the activities: the workflows' names on
// the wire, inputs and results, signals and queries, and the interface of the activities they call. It
// imports nothing of this project outside workflows/. Nothing here may do I/O.
import { defineSignal } from '@temporalio/workflow';
import { defineWorkflow } from '../hand-off.js';

/** How many shard dispatchers send webhooks (WEBHOOK_SHARDS, set once at boot by the API and the worker). */
export const webhookShards = { count: 8 };

/**
 * The shard of a store: a stable hash of its id (the last 32 bits of the UUID, uniformly random for
 * v4 ids) modulo the shard count. SHARD_OF_STORE_SQL computes the same in PostgreSQL.
 */
export function webhookShard(storeId: string, shards: number): number {
  return Number.parseInt(storeId.slice(-8), 16) % shards;
}

/** The dispatcher of shard `shard` out of `shards`. */
export interface WebhookDispatchInput {
  shard: number;
  shards: number;
}

export interface WebhookDispatchActivities {
  /** Sends every waiting delivery of the shard's stores, each claimed before its one POST (activities/webhooks/lane.ts). */
  sendShardDeliveries: (input: WebhookDispatchInput) => Promise<LaneOutcome>;
}

export interface WebhookLaneInput {
  storeId: string;
}

/** Events of the store were committed while its lane was idle: send them. Carries nothing; the database is the truth. */
export const deliveriesWaiting = defineSignal('deliveriesWaiting');

/** One attempt as the Temporal UI shows it in the run's result: find a delivery by its id, order or endpoint. */
export interface LaneAttempt {
  delivery: string;
  order: string;
  endpoint: string;
  event: string;
  result: string;
}

export interface LaneOutcome {
  /** The run's attempts, the first DISPATCH.resultAttempts of them (the delivery rows name the run of every one). */
  attempts: LaneAttempt[];
  /** Attempts made in all, and how many of them the list leaves out. */
  made?: number;
  /** Deliveries settled unsent because their endpoint's circuit stayed open too long (docs/webhooks.md). */
  circuitOpen?: number;
  /** Deliveries not claimed because their endpoint was deleted (cancelled). */
  cancelled: number;
  /** True when the run stopped at its limits (work may be left): the workflow runs the activity again at once. */
  more: boolean;
}

export interface WebhookLaneActivities {
  /** Sends every delivery the store has waiting, each claimed before its one POST (activities/webhooks/lane.ts). */
  sendLaneDeliveries: (storeId: string) => Promise<LaneOutcome>;
}

/** One delivery an operator asked to send again (the input of its replay workflow). */
export interface PlannedDelivery {
  deliveryId: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  storeId: string;
  orderId: string;
}

export interface WebhookDeliveryResult {
  status: number | null;
  outcome: string;
}

export interface WebhookDeliveryActivities {
  /** Claims, sends once and records one delivery (activities/webhooks/delivery.ts). */
  deliverWebhook: (planned: PlannedDelivery) => Promise<WebhookDeliveryResult>;
}

/** The webhooks workflows the task queue runs; the names are on the wire (outbox rows, running workflows): never rename one. */
export const webhooksWorkflows = {
  webhookLane: defineWorkflow<[WebhookLaneInput]>('webhookLaneWorkflow'),
  webhookDispatch: defineWorkflow<[WebhookDispatchInput]>('webhookDispatchWorkflow'),
  webhookDelivery: defineWorkflow<[PlannedDelivery], WebhookDeliveryResult>('webhookDeliveryWorkflow'),
};
