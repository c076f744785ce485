/**
 * What holds the service's event loop (the stall harness's tracing, issue 27):
 * loaded into the served child (serve.ts) when STALL_TRACE names a file. A
 * timer ticks every 2 ms; a gap between ticks longer than LONG_MS is a long
 * macrotask, recorded with its wall time, the main thread's own CPU time and
 * run-queue wait over the gap (`/proc/thread-self/schedstat`, nanoseconds;
 * process.cpuUsage would add the text pool's threads), and the garbage
 * collection that ran in it. A CPU profile of the main thread (inspector,
 * 0.5 ms samples) is written beside it, so each long task's stack can be read
 * (test/stall-trace.ts). Load stretches wall time; the CPU time is the task's.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { PerformanceObserver } from 'node:perf_hooks'

const LONG_MS = Number(process.env.STALL_TRACE_LONG_MS ?? 20)
const TICK_MS = 2

export interface LongTask {
  /** Start and end, microseconds of the monotonic clock (the profile's timestamps). */
  startUs: number
  endUs: number
  wallMs: number
  cpuMs: number
  waitMs: number
  gcMs: number
}

/** On-CPU and run-queue nanoseconds of this thread. */
function schedstat (): [number, number] {
  const [run, wait] = readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')
  return [Number(run), Number(wait)]
}

const nowUs = (): number => Number(process.hrtime.bigint() / 1000n)

export async function watchLoop (file: string): Promise<() => Promise<void>> {
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', { interval: 500 })
  await session.post('Profiler.start')
  const gcs: Array<{ startUs: number, endUs: number }> = []
  // performance entries are relative to timeOrigin; hrtime is what the profile uses.
  const originUs = nowUs() - performance.now() * 1000
  const gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push({ startUs: originUs + e.startTime * 1000, endUs: originUs + (e.startTime + e.duration) * 1000 })
  })
  gcObserver.observe({ entryTypes: ['gc'] })
  const tasks: LongTask[] = []
  let last = nowUs()
  let [lastRun, lastWait] = schedstat()
  const timer = setInterval(() => {
    const now = nowUs()
    const [run, wait] = schedstat()
    const wallMs = (now - last) / 1000 - TICK_MS
    if (wallMs > LONG_MS) tasks.push({ startUs: last, endUs: now, wallMs, cpuMs: (run - lastRun) / 1e6, waitMs: (wait - lastWait) / 1e6, gcMs: 0 })
    last = now
    lastRun = run
    lastWait = wait
  }, TICK_MS)
  return async () => {
    clearInterval(timer)
    gcObserver.disconnect()
    const { profile } = await session.post('Profiler.stop')
    for (const t of tasks) {
      t.gcMs = gcs.filter((g) => g.endUs > t.startUs && g.startUs < t.endUs)
        .reduce((sum, g) => sum + (Math.min(g.endUs, t.endUs) - Math.max(g.startUs, t.startUs)) / 1000, 0)
    }
    writeFileSync(file, JSON.stringify({ tasks, gcs: gcs.length, profile }))
    session.disconnect()
  }
}
