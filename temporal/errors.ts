/** True when the Temporal service could not be reached. */
export function isTemporalUnavailable(err: unknown): boolean {
  return hasCause(err, (e) => e.name === 'TransportError' || e.code === GRPC.UNAVAILABLE || e.code === GRPC.DEADLINE_EXCEEDED);
}

/**
 * True when Temporal could not take a request now, whatever the request: unreachable, or throttling
 * (RESOURCE_EXHAUSTED). Other service errors are answers about the request itself.
 */
export function isTemporalBusyOrDown(err: unknown): boolean {
  return isTemporalUnavailable(err) || hasCause(err, (e) => e.code === GRPC.RESOURCE_EXHAUSTED);
}

// gRPC status codes; other service errors are real failures, not outages.
const GRPC = { DEADLINE_EXCEEDED: 4, RESOURCE_EXHAUSTED: 8, UNAVAILABLE: 14 };

function hasCause(err: unknown, test: (e: any) => boolean): boolean {
  for (let e: any = err, depth = 0; e && depth < 5; e = e.cause, depth++) if (test(e)) return true;
  return false;
}

/** An error's message with its causes' ("Failed to start Workflow: 3 INVALID_ARGUMENT: …"), for operators. */
export function describeTemporalError(err: unknown): string {
  const parts: string[] = [];
  for (let e: any = err, depth = 0; e && depth < 5; e = e.cause, depth++) {
    const message = String(e.message ?? e);
    if (message && !parts.some((p) => p.includes(message))) parts.push(message);
  }
  return parts.join(': ');
}
