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
  /** Called about every 250 ms while the run lasts (memory sampling). */
  onSample?: () => void
}

export async function measure (opts: LoadOptions): Promise<Measurement> {
  const timer = opts.onSample === undefined ? undefined : setInterval(opts.onSample, 250)
  try {
    const result = await autocannon({
      url: opts.url,
      method: opts.method ?? 'GET',
      headers: opts.headers,
      body: opts.body,
      idReplacement: opts.idReplacement ?? false,
      duration: opts.duration,
      connections: opts.connections,
      pipelining: 1
    })
    return {
      requestsPerSec: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.timeouts + result.non2xx,
      requests: result.requests.total
    }
  } finally {
    if (timer !== undefined) clearInterval(timer)
  }
}
