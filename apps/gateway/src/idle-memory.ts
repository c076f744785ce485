/**
 * Gives memory back once the service goes idle. V8 grows its young
 * generation while requests allocate (up to 16 MB a semi-space, 32 MB
 * resident) and shrinks it only in a collection that runs while allocation
 * is slow; an idle service runs no collection at all, so it kept what its
 * busiest moment needed (127 MB on PostgreSQL after 20 requests and any
 * idle time, against 100 MB when ready; bench/src/embedded-memory.ts). So
 * after `quietMs` without a request, following some requests, one full
 * collection runs (tens of ms, once per busy-then-quiet turn, never under
 * load), and V8 shrinks the young generation in it.
 */
import type { FastifyInstance } from 'fastify'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** V8's `gc()` without starting Node with --expose-gc (the flag exposes it to contexts made after it is set). */
function collector (): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as unknown
    return typeof gc === 'function' ? gc as () => void : undefined
  } catch {
    return undefined
  }
}

/** Runs `tick` every `ms` (unref'd); answers how to stop it. */
function every (ms: number): (tick: () => void) => () => void {
  return (tick) => {
    const timer = setInterval(tick, ms)
    timer.unref()
    return () => { clearInterval(timer) }
  }
}

/**
 * `quietMs`: how often it looks (a collection follows a look that found no
 * request since the one before, when the one before found some). `gc` and
 * `schedule` are for its test (a counting collector, looks it makes itself).
 */
export function collectWhenIdle (app: FastifyInstance, opts: { quietMs?: number, gc?: () => void, schedule?: (tick: () => void) => () => void } = {}): void {
  const gc = opts.gc ?? collector()
  if (gc === undefined) return
  let requests = 0
  let seen = 0
  let pending = false
  // The HTTP server's own event: every request, whichever plugin's route answers it.
  app.server.on('request', () => { requests++ })
  const stop = (opts.schedule ?? every(opts.quietMs ?? 5000))(() => {
    // Requests since the last look: not idle yet. None since, after some: collect once.
    if (requests !== seen) {
      seen = requests
      pending = true
      return
    }
    if (!pending) return
    pending = false
    gc()
  })
  app.addHook('onClose', async () => { stop() })
}
