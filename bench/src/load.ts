/**
 * One autocannon run: requests per second, latency percentiles and errors
 * (connection errors, timeouts and non-2xx answers).
 */
import autocannon from 'autocannon'

export interface Measurement {
  requestsPerSec: number
  p50: number
  p99: number
  errors: number
  requests: number
  /** CPU time of the server under load per answered request, in microseconds (when measured). */
  cpuUsPerRequest?: number
  /** PostgreSQL's CPU time per answered request, in microseconds (when measured). */
  dbCpuUsPerRequest?: number
  /** The share of the machine's CPU time left idle during the run, in percent (when measured). */
  idlePercent?: number
  /** The server's peak resident memory during the run, in MB (when measured). */
  peakRssMb?: number
  /** Answers by HTTP status (what the errors were). */
  statuses?: Record<string, number>
}

export interface LoadOptions {
  url: string
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
  /** Replace `[<id>]` in the body with a fresh id on every request. */
  idReplacement?: boolean
  duration: number
  connections: number
  /** Stop after this many requests (before the duration ends). */
  amount?: number
  /** The path of the n-th request (from 1), where each must differ in a way `[<id>]` cannot write (a number). */
  pathOf?: (n: number) => string
}

/** autocannon's request setup giving each request the path of its number. */
function numbered (pathOf: (n: number) => string): (req: { path?: string }) => { path?: string } {
  let n = 0
  return (req) => ({ ...req, path: pathOf(++n) })
}

export async function measure (opts: LoadOptions): Promise<Measurement> {
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    idReplacement: opts.idReplacement ?? false,
    duration: opts.duration,
    ...(opts.amount === undefined ? {} : { amount: opts.amount }),
    connections: opts.connections,
    pipelining: 1,
    ...(opts.pathOf === undefined ? {} : { requests: [{ setupRequest: numbered(opts.pathOf) }] })
  })
  return {
    requestsPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    requests: result.requests.total,
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, (s as { count: number }).count]))
  }
}
