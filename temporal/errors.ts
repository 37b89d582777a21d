/** True when the Temporal service could not be reached. */
export function isTemporalUnavailable(err: unknown): boolean {
  for (let e: any = err, depth = 0; e && depth < 5; e = e.cause, depth++) {
    // gRPC UNAVAILABLE (14) and DEADLINE_EXCEEDED (4); other service errors are real failures, not outages.
    if (e.name === 'TransportError' || e.code === 14 || e.code === 4) return true;
  }
  return false;
}
