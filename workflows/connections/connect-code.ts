import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import {
  connectCodeExchanged,
  type ConnectCodeActivities,
  type ConnectCodeInput,
  type ConnectCodeResult,
  type connectionsWorkflows,
} from './definitions.js';
import { type WorkflowOf } from '../hand-off.js';

const { expireConnectCode } = proxyActivities<ConnectCodeActivities>({ startToCloseTimeout: '30 seconds' });

/**
 * Owns one connect code's life: it ends when the code is exchanged, or its timer expires the code.
 * The exchange itself checks the database, so an exchange never waits on this workflow.
 */
export async function connectCodeWorkflow(input: ConnectCodeInput): Promise<ConnectCodeResult> {
  let connectionId: string | undefined;
  setHandler(connectCodeExchanged, (signal) => {
    connectionId = signal.connectionId;
  });
  if (await condition(() => connectionId !== undefined, Math.max(1, input.ttlMs)))
    return { outcome: 'exchanged', connectionId: connectionId! };
  const expired = await expireConnectCode(input.codeId);
  return expired ? { outcome: 'expired' } : { outcome: 'exchanged' };
}
connectCodeWorkflow satisfies WorkflowOf<typeof connectionsWorkflows.connectCode>;
