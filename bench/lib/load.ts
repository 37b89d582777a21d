import autocannon from 'autocannon';

/** One request as the load generator sends it; fields left out keep the run's defaults. */
export interface NextRequest {
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  url: string;
  connections: number;
  durationSec: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Requests per second over all connections; omitted means saturation. */
  overallRate?: number;
  /** Called for every request (key rotation, fresh bodies). */
  next?: () => NextRequest;
}

export interface LoadResult {
  /** 2xx responses per second: only successful requests count. */
  okPerSec: number;
  p50Ms: number;
  p99Ms: number;
  ok: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** Response counts by status code, e.g. { "200": 10, "429": 2 }. */
  statuses: Record<string, number>;
}

/** Runs autocannon against one URL and reduces its result to what the scenarios report. */
export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const next = opts.next;
  const requests: autocannon.Request[] | undefined = next
    ? [
        {
          setupRequest: (req) => {
            const n = next();
            return {
              ...req,
              ...(n.path ? { path: n.path } : {}),
              ...(n.body !== undefined ? { body: n.body } : {}),
              headers: { ...req.headers, ...n.headers },
            };
          },
        },
      ]
    : undefined;
  const result = await autocannon({
    url: opts.url,
    connections: opts.connections,
    duration: opts.durationSec,
    method: opts.method ?? 'GET',
    headers: opts.headers ?? {},
    ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
    ...(requests ? { requests } : {}),
  });
  const statuses: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stat.count ?? 0;
  const seconds = Math.max(result.duration, 0.001);
  return {
    okPerSec: result['2xx'] / seconds,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    statuses,
  };
}
