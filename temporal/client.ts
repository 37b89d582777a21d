import { Client, Connection } from '@temporalio/client';

export interface TemporalHandle {
  client: Client;
  connection: Connection;
  taskQueue: string;
}

/** One lazily connected client: the API starts (and keeps serving) while Temporal is down. */
export function createTemporalClient(opts: { address: string; namespace: string; taskQueue: string }): TemporalHandle {
  const connection = Connection.lazy({ address: opts.address });
  return { client: new Client({ connection, namespace: opts.namespace }), connection, taskQueue: opts.taskQueue };
}

/** True when the Temporal frontend answers its health check within the timeout. */
export async function isTemporalReachable(handle: TemporalHandle, timeoutMs = 2000): Promise<boolean> {
  try {
    await handle.connection.withDeadline(Date.now() + timeoutMs, () => handle.connection.healthService.check({}));
    return true;
  } catch {
    return false;
  }
}
