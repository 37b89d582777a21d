/** True when an error means PostgreSQL cannot be reached or is going away: answer 503, not 500. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: any = err, depth = 0; e && depth < 5; e = e.cause, depth++) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', '57P01', '57P02', '57P03', '53300'].includes(code)) return true;
    // Class 08 is about the connection, except 08P01 (protocol violation): a malformed statement, not an outage.
    if (code.startsWith('08') && code !== '08P01') return true;
    const name = typeof e.name === 'string' ? e.name : '';
    if (name === 'ConnectionException') return true;
    const message = typeof e.message === 'string' ? e.message : '';
    if (/Connection terminated|connection timeout|Query read timeout|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection/i.test(message)) return true;
  }
  return false;
}
