// Pure: the contract of connect codes and the push of updates to a connected shop between producers
// (services, through the outbox), the workflows and the activities: the workflows' names on the wire, inputs
// and results, signals and queries, and the interface of the activities they call. It imports nothing of this
// project outside workflows/. Nothing here may do I/O.
import { defineSignal } from '@temporalio/workflow';
import { defineWorkflow } from '../hand-off.js';

export interface ConnectCodeInput {
  codeId: string;
  storeId: string;
  ttlMs: number;
}

export interface ConnectCodeResult {
  outcome: 'exchanged' | 'expired';
  connectionId?: string;
}

/** The code was exchanged for a connection: the code's life is over. */
export const connectCodeExchanged = defineSignal<[{ connectionId: string }]>('connectCodeExchanged');

export interface ConnectCodeActivities {
  /** Expires a connect code that was not used in time; false when it was used. */
  expireConnectCode: (codeId: string) => Promise<boolean>;
}

export interface ConnectionPushInput {
  connectionId: string;
}

/** New updates are waiting for this connection. */
export const updatesQueued = defineSignal('updatesQueued');

/** Operator action (Temporal UI or CLI): send waiting and failed updates again now. */
export const replayUpdates = defineSignal('replayUpdates');

/** What one run of the push activity did. */
export interface UpdatePushOutcome {
  /** Why nothing more will be pushed: the connection is gone, or it pulls only. */
  stopped?: 'disconnected' | 'pull_only';
  sent: number;
  acknowledged: number;
  /** More updates are due right now (another batch). */
  more: boolean;
  /** When the next waiting update is due, if any. */
  nextPushInMs: number | null;
}

export interface ConnectionPushActivities {
  /** The connection's update push to its plugin, in batches while new ones keep coming (activities/connections/update-push-lane.ts); the activity keeps its first name for the workflows already running. */
  pushDueUpdates: (connectionId: string) => Promise<UpdatePushOutcome>;
  /** Marks waiting and failed updates due again; how many. */
  replayConnectionUpdates: (connectionId: string) => Promise<number>;
}

/** The connections workflows the task queue runs; the names are on the wire (outbox rows, running workflows): never rename one. */
export const connectionsWorkflows = {
  connectCode: defineWorkflow<[ConnectCodeInput], ConnectCodeResult>('connectCodeWorkflow'),
  connectionPush: defineWorkflow<[ConnectionPushInput]>('connectionPushWorkflow'),
};
