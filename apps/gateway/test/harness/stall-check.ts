/**
 * Timing adversarial requests from outside the service (test/adversarial.run.ts,
 * a bench run by bench/reliability/run.sh, never by the test command: it judges wall time):
 * the service runs in a child process (serve.ts) so that a stalled event
 * loop is seen by a client that is not stalled with it; each request is sent
 * with `/healthz` asked one after another while it is in flight.
 *
 * What fails: no answer or a 500-class answer (a documented 502, the oEmbed
 * proxy's unreachable host, is an answer like the documented 4xx; a body
 * over the limit closed after its 413 counts as that 413), an answer slower
 * than its bound, a `/healthz` slower than its bound meanwhile.
 *
 * Bounds. The issue's figures are 200 ms for an answer and 100 ms for
 * `/healthz` on an idle core; `factor` multiplies both for a loaded machine.
 * Two relaxations, both linear:
 * - per megabyte: a probe puts the string in every free-text argument of a
 *   route at once (8 of them for a user: an 8 MB body), and linear work on
 *   k megabytes takes k times the time of one, so the bounds are per
 *   megabyte of request;
 * - against the route itself: an answer past its bound is compared with the
 *   same request carrying plain `x` of the same length (not of the same
 *   bytes: longer, it would meet the kernel's 1 MiB bound), sent right after
 *   it so both see the same load, and sent once more, the better of its two
 *   times kept (a slow path repeats; a moment of load or the service's cold
 *   start does not); within `ratio` times the plain answer, the route is
 *   slow for any megabyte (hashing a password, storing and echoing
 *   megabytes), not for this string, and it passes.
 * Nothing is compared with a fixed time alone, so a loaded machine slows
 * the yardstick with the probe.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { createInterface } from 'node:readline'
import { request } from 'undici'
import { describe, type HttpRequest } from './requests.js'
import { probeRequest, type AdversarialString, type StringProbe } from './adversarial.js'
import { codeOf, DOCUMENTED_5XX } from './check.js'

/** A small seeded generator (mulberry32): the same seed draws the same sequence. */
export function generator (seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = Math.imul(a ^ (a >>> 15), 1 | a)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

/** `list` shuffled by `random` (Fisher-Yates), a copy. */
export function shuffled<T> (list: readonly T[], random: () => number): T[] {
  const deck = [...list]
  for (let i = deck.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [deck[i], deck[j]] = [deck[j]!, deck[i]!]
  }
  return deck
}

export interface Served { child: ChildProcess, base: string, headers: Record<string, string>, contributor: Record<string, string> }

/**
 * The service of `profile` in a child process, its URL limit raised so a
 * megabyte reaches the handlers of GET routes too (the default limit
 * answers 414 before reading it: test/url-limits.test.ts). `env` adds
 * settings (CMS_HARNESS_FIXTURE: serve.ts adds a fixture package).
 */
export async function serve (profile: 'A' | 'B', size: number, env: Record<string, string> = {}): Promise<Served> {
  const script = fileURLToPath(new URL('./serve.ts', import.meta.url))
  // Query strings of several megabytes (percent-encoded, 1 MB of `<` is 3 MB).
  const child = spawn(process.execPath, [...process.execArgv, script], {
    // JSON bodies as large as any body (8 probes of a megabyte): the handlers, not the JSON limit, are what is probed.
    env: { ...process.env, CMS_JSON_BODY_LIMIT: String(8 * 1024 * 1024), ...env, CMS_DEPLOYMENT: profile, CMS_MAX_URL_LENGTH: String(Math.max(8192, 8 * size + 4096)) },
    stdio: ['pipe', 'pipe', 'inherit']
  })
  const lines = createInterface({ input: child.stdout! })
  const [line] = await once(lines, 'line') as [string]
  const { base, headers, contributor } = JSON.parse(line) as { base: string, headers: Record<string, string>, contributor: Record<string, string> }
  return { child, base, headers, contributor }
}

export async function stop (served: Served): Promise<void> {
  if (served.child.exitCode !== null) return
  const exited = once(served.child, 'exit')
  // A traced service writes its trace when asked to stop (serve.ts); given a minute for it.
  if (process.env.STALL_TRACE !== undefined && process.env.STALL_TRACE !== '') {
    served.child.kill('SIGTERM')
    const killer = setTimeout(() => served.child.kill('SIGKILL'), 60_000)
    await exited
    clearTimeout(killer)
    return
  }
  served.child.kill('SIGKILL')
  await exited
}

/**
 * Sends `req`; the status, 0 when no answer came within `timeoutMs`, -1 when
 * the connection was closed before the client had sent the whole body (and
 * read the answer): a service that answers before reading a body it does
 * not need (an upload route refusing a JSON body; a body past the drain
 * bound, whose 413 test/body-limit.test.ts checks) closes the connection, as
 * Node does with an unread body. Whether the service is still up is checked
 * after each such answer.
 */
async function timed (base: string, req: HttpRequest, timeoutMs: number): Promise<{ status: number, ms: number, code?: string }> {
  // Timers take whole milliseconds: undici refuses a fractional timeout before sending anything.
  const timeout = Math.ceil(timeoutMs)
  const started = performance.now()
  try {
    const res = await request(base + req.url, {
      method: req.method as 'GET',
      headers: req.headers,
      body: req.payload,
      headersTimeout: timeout,
      bodyTimeout: timeout,
      signal: AbortSignal.timeout(timeout)
    })
    const text = await res.body.text()
    const ms = performance.now() - started
    // A 5xx's code says whether it is one the conventions document (an outside service not configured).
    return res.statusCode >= 500 ? { status: res.statusCode, ms, code: codeOf({ status: res.statusCode, headers: {}, body: text }) } : { status: res.statusCode, ms }
  } catch {
    const ms = performance.now() - started
    return { status: ms < timeout && req.payload !== undefined ? -1 : 0, ms }
  }
}

/** Bytes of a request's URL and body. */
function sizeOf (req: HttpRequest): number {
  return req.url.length + (typeof req.payload === 'string' ? req.payload.length : 0)
}

/** Megabytes a request carries (at least one): the bounds are per megabyte. */
function megabytes (req: HttpRequest): number {
  return Math.max(1, sizeOf(req) / 1_000_000)
}

interface Measured { status: number, ms: number, health: number, code?: string }

const HEALTHZ: HttpRequest = { method: 'GET', url: '/healthz', headers: {} }

/**
 * Sends `req` with `/healthz` sent one after another for as long as it is in
 * flight; the worst of those (Infinity: one failed), each counted even when
 * it comes back after the request's answer (a handler that blocks the loop
 * holds the `/healthz` sent meanwhile until it returns).
 */
async function measure (base: string, req: HttpRequest, timeoutMs: number): Promise<Measured> {
  let inFlight = true
  let health = 0
  const healthz = (async () => {
    // eslint-disable-next-line no-unmodified-loop-condition -- cleared by measure() once the request settles
    while (inFlight) {
      const r = await timed(base, HEALTHZ, timeoutMs)
      health = Math.max(health, r.status === 200 ? r.ms : Infinity)
    }
  })()
  const answer = await timed(base, req, timeoutMs)
  inFlight = false
  await healthz
  return { ...answer, health }
}

/**
 * A documented answer: anything below 500, the 502 of a proxy whose remote
 * end cannot be reached, and the conventions' other 5xx by their codes (a
 * valid request to an outside service that is not configured: 503
 * `rest_upstream_unconfigured`).
 */
function answered (status: number, code: string | undefined): boolean {
  return status > 0 && (status < 500 || status === 502 || DOCUMENTED_5XX[status]?.includes(code ?? '') === true)
}

export interface Probed {
  probe: StringProbe
  string: AdversarialString
  /** This request's own factor (the fixture that must be found is held to the issue's figures). */
  factor?: number
}

export interface StallOptions {
  /** Multiplies the issue's 200 ms (answer) and 100 ms (`/healthz`) per megabyte. */
  factor: number
  /** An answer past its bound passes within this many times the plain-text answer. */
  ratio: number
  /** Starts a fresh service (after a stall, the old one is killed). */
  start: () => Promise<Served>
  /** Said as found, so a long run shows its progress. */
  comment: (line: string) => void
  /** A profile stops after this many stalls (each costs a fresh service). */
  maxStalls?: number
}

export interface StallReport {
  findings: string[]
  statuses: Record<string, number>
  sent: number
  stalls: number
  compared: number
  slowest: number
  slowestHealth: number
}

/** Sends each probe with its string to a service of its own (started here, stopped at the end). */
export async function checkStalls (items: readonly Probed[], opts: StallOptions): Promise<StallReport> {
  const report: StallReport = { findings: [], statuses: {}, sent: 0, stalls: 0, compared: 0, slowest: 0, slowestHealth: 0 }
  let served = await opts.start()
  try {
    for (const { probe, string, factor = opts.factor } of items) {
      const req = probeRequest(probe, string.value, served.headers)
      const mb = megabytes(req)
      const answerBound = 200 * factor * mb
      const healthBound = 100 * factor * mb
      // Long enough for a slow route under load to be compared with its plain answer, not forever.
      const timeoutMs = Math.max(3 * answerBound, 30_000)
      const answer = await measure(served.base, req, timeoutMs)
      report.sent++
      report.slowest = Math.max(report.slowest, answer.ms)
      if (Number.isFinite(answer.health)) report.slowestHealth = Math.max(report.slowestHealth, answer.health)
      const where = `${probe.target.key} [${probe.names.join(', ')}] ${string.label} (${mb.toFixed(1)} MB)`
      const found: string[] = []
      if (answer.status === -1) {
        // Closed before the body was sent whole: fine if the service is up and answering.
        const up = served.child.exitCode === null && (await timed(served.base, HEALTHZ, timeoutMs)).status === 200
        if (!up) {
          found.push(`${where}: the connection was closed and the service is down`)
          answer.status = 0
        }
      } else if (!answered(answer.status, answer.code)) {
        found.push(`${where}: ${answer.status === 0 ? `no answer after ${answer.ms.toFixed(0)} ms` : `status ${answer.status}`}`)
      }
      if (answer.status > 0 && (answer.ms > answerBound || answer.health > healthBound)) {
        // Past the bound: is it this string, or the route with any megabyte? The same request with plain text, now.
        // And the string once more: a slow path repeats, a moment of load (or a cold start of the service) does not.
        report.compared++
        const plain = await measure(served.base, probeRequest(probe, 'x'.repeat(string.value.length), served.headers), timeoutMs)
        const again = await measure(served.base, req, timeoutMs)
        const ms = Math.min(answer.ms, again.ms)
        const health = Math.min(answer.health, again.health)
        const versus = `(again: ${again.ms.toFixed(0)} ms, /healthz ${again.health.toFixed(0)} ms; plain text: ${plain.ms.toFixed(0)} ms, /healthz ${plain.health.toFixed(0)} ms)`
        if (ms > Math.max(answerBound, opts.ratio * plain.ms)) found.push(`${where}: answered ${answer.status} after ${answer.ms.toFixed(0)} ms ${versus}`)
        if (health > Math.max(healthBound, opts.ratio * plain.health)) found.push(`${where}: /healthz took ${Number.isFinite(answer.health) ? `${answer.health.toFixed(0)} ms` : 'too long'} meanwhile ${versus}`)
      }
      const key = answer.status === -1 ? 'closed' : String(answer.status)
      report.statuses[key] = (report.statuses[key] ?? 0) + 1
      for (const f of found) opts.comment(f)
      report.findings.push(...found)
      if (answer.status === 0) {
        // Still stalled: a fresh service for the next probe.
        report.stalls++
        opts.comment(`stalled: ${describe(req)}`)
        await stop(served)
        if (report.stalls >= (opts.maxStalls ?? 5)) break
        served = await opts.start()
      }
    }
  } finally {
    await stop(served)
  }
  return report
}

/** One line of figures for a report. */
export function summary (r: StallReport): string {
  return `${r.sent} requests, statuses ${Object.entries(r.statuses).map(([k, v]) => `${k}:${v}`).join(' ')}, slowest answer ${r.slowest.toFixed(0)} ms, slowest /healthz ${r.slowestHealth.toFixed(0)} ms, ${r.compared} compared with plain text`
}
