/**
 * Run with `bench/reliability/run.sh adversarial` (not part of the suite
 * while it still finds stalls: named `.run.ts` so the suite's
 * `test/**\/*.test.ts` does not include it).
 *
 * Adversarial strings (test/data/adversarial-strings.txt: long runs of
 * spaces, unclosed brackets and tags, `[gallery ` and `<img ` runs,
 * nested-quantifier bait), 1 MB each, sent to every route of both profiles
 * that takes a string argument, read from the declared routes: each must be
 * answered in time, and a `/healthz` sent meanwhile too. The service runs
 * in a child process (test/harness/serve.ts) so a stall is measured from
 * outside; a stalled service is replaced by a fresh one and the next probe
 * goes on.
 *
 * Bounds: 200 ms for an answer and 100 ms for `/healthz` on an idle core;
 * CMS_ADVERSARIAL_FACTOR (default 10) multiplies both for a loaded two-core
 * machine. The stalls found on 2026-11-25 took seconds to minutes per
 * request (a megabyte of `[gallery ` took minutes), far beyond either.
 *
 * Every probe is sent; each with CMS_ADVERSARIAL_PER_PROBE strings (default
 * 3; `all` for every string) drawn by a seeded generator so that the strings
 * rotate over the probes (every string is sent many times per run) and a run
 * is repeatable: CMS_ADVERSARIAL_SEED (printed) replays one. The defaults
 * send about 250 requests of a megabyte, a few minutes on a loaded machine;
 * `all` about 1,900.
 *
 * The service is started with its URL limit raised (CMS_MAX_URL_LENGTH, 8 MB)
 * so that a megabyte reaches the handlers of GET routes too: the default limit
 * answers such a request 414 before reading it (test/url-limits.test.ts).
 */
import t from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { createInterface } from 'node:readline'
import { request } from 'undici'
import { describe, type HttpRequest } from './harness/requests.js'
import { harnessApp } from './harness/app.js'
import { targetsOf } from './harness/routes.js'
import { adversarialStrings, probeRequest, stringProbes } from './harness/adversarial.js'

const SIZE = Number(process.env.CMS_ADVERSARIAL_SIZE ?? 1_000_000)
const FACTOR = Number(process.env.CMS_ADVERSARIAL_FACTOR ?? 10)
const ANSWER_MS = 200 * FACTOR
const HEALTH_MS = 100 * FACTOR
/** A profile stops after this many stalls (each costs a fresh service). */
const MAX_STALLS = 5

/** Only the probes whose route matches (`POST /cms/v2/posts`), for a look at one family. */
const ONLY = process.env.CMS_ADVERSARIAL_ONLY === undefined ? undefined : new RegExp(process.env.CMS_ADVERSARIAL_ONLY)

const STRINGS = adversarialStrings(SIZE)
const PER_PROBE = process.env.CMS_ADVERSARIAL_PER_PROBE === 'all' ? STRINGS.length : Math.min(STRINGS.length, Number(process.env.CMS_ADVERSARIAL_PER_PROBE ?? 3))
const SEED = Number(process.env.CMS_ADVERSARIAL_SEED ?? 20261125)
t.ok(STRINGS.length >= 15, `${STRINGS.length} adversarial strings of ${SIZE} characters`)
t.comment(`bounds: answers ${ANSWER_MS} ms, /healthz ${HEALTH_MS} ms (factor ${FACTOR}); ${PER_PROBE} strings per probe, seed ${SEED}`)
t.setTimeout(3_600_000)

/** A small seeded generator (mulberry32): the same seed draws the same strings. */
function generator (seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = Math.imul(a ^ (a >>> 15), 1 | a)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * The strings each probe gets: `per` of them, taken in turn from a shuffled
 * deck reshuffled when used up, so every string is sent about equally often.
 */
function drawStrings<T> (probes: number, strings: readonly T[], per: number, seed: number): T[][] {
  const random = generator(seed)
  let deck: T[] = []
  return Array.from({ length: probes }, () => {
    const picked: T[] = []
    while (picked.length < per) {
      if (deck.length === 0) {
        deck = [...strings]
        for (let i = deck.length - 1; i > 0; i--) {
          const j = Math.floor(random() * (i + 1));
          [deck[i], deck[j]] = [deck[j]!, deck[i]!]
        }
      }
      const next = deck.pop()!
      if (!picked.includes(next)) picked.push(next)
    }
    return picked
  })
}

interface Served { child: ChildProcess, base: string, headers: Record<string, string> }

async function serve (profile: 'A' | 'B'): Promise<Served> {
  const script = fileURLToPath(new URL('./harness/serve.ts', import.meta.url))
  // Query strings of several megabytes (percent-encoded, 1 MB of `<` is 3 MB): the URL limit is raised.
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, CMS_DEPLOYMENT: profile, CMS_MAX_URL_LENGTH: String(8 * SIZE + 4096) },
    stdio: ['pipe', 'pipe', 'inherit']
  })
  const lines = createInterface({ input: child.stdout! })
  const [line] = await once(lines, 'line') as [string]
  const { base, headers } = JSON.parse(line) as { base: string, headers: Record<string, string> }
  return { child, base, headers }
}

async function stop (served: Served): Promise<void> {
  if (served.child.exitCode !== null) return
  const exited = once(served.child, 'exit')
  served.child.kill('SIGKILL')
  await exited
}

/** Sends `req`; the status, or 0 when no answer came within `timeoutMs`. */
async function timed (base: string, req: HttpRequest, timeoutMs: number): Promise<{ status: number, ms: number }> {
  const started = performance.now()
  try {
    const res = await request(base + req.url, {
      method: req.method as 'GET',
      headers: req.headers,
      body: req.payload,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs)
    })
    await res.body.text()
    return { status: res.statusCode, ms: performance.now() - started }
  } catch {
    return { status: 0, ms: performance.now() - started }
  }
}

/** Routes probed in profile A are not probed again in B (the same code serves both). */
const probed = new Set<string>()

for (const profile of ['A', 'B'] as const) {
  t.test(`profile ${profile}`, async (t) => {
    // The declared routes, read from an app of the same profile.
    const h = await harnessApp({ CMS_DEPLOYMENT: profile })
    const probes = targetsOf(h.app)
      .filter((target) => target.endpoint.methods[0] === target.method && !probed.has(target.key) && (ONLY === undefined || ONLY.test(target.key)))
      .flatMap(stringProbes)
    await h.close()
    for (const probe of probes) probed.add(probe.target.key)
    const drawn = drawStrings(probes.length, STRINGS, PER_PROBE, SEED + (profile === 'A' ? 0 : 7919))
    t.comment(`${probes.length} probes on ${new Set(probes.map((p) => p.target.key)).size} routes not probed before: ${probes.length * PER_PROBE} requests`)

    let served = await serve(profile)
    t.teardown(async () => { await stop(served) })
    const findings: string[] = []
    const statuses: Record<string, number> = {}
    let slowest = 0
    let slowestHealth = 0
    let stalls = 0
    let sent = 0
    outer:
    for (const [index, probe] of probes.entries()) {
      for (const s of drawn[index]!) {
        const req = probeRequest(probe, s.value, served.headers)
        // /healthz, one after another, for as long as the probe is in flight.
        let inFlight = true
        let worstHealth = 0
        const health = (async () => {
          while (inFlight) {
            const r = await timed(served.base, { method: 'GET', url: '/healthz', headers: {} }, HEALTH_MS * 3)
            if (inFlight) worstHealth = Math.max(worstHealth, r.status === 200 ? r.ms : Infinity)
          }
        })()
        const answer = await timed(served.base, req, ANSWER_MS * 3)
        inFlight = false
        await health
        sent++
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1
        slowest = Math.max(slowest, answer.ms)
        if (Number.isFinite(worstHealth)) slowestHealth = Math.max(slowestHealth, worstHealth)
        const where = `${probe.target.key} [${probe.names.join(', ')}] ${s.label}`
        const found: string[] = []
        if (answer.status === 0 || answer.ms > ANSWER_MS) found.push(`${where}: ${answer.status === 0 ? 'no answer' : `answered ${answer.status}`} after ${answer.ms.toFixed(0)} ms`)
        else if (answer.status >= 500) found.push(`${where}: status ${answer.status}`)
        if (worstHealth > HEALTH_MS) found.push(`${where}: /healthz took ${Number.isFinite(worstHealth) ? `${worstHealth.toFixed(0)} ms` : 'too long'} meanwhile`)
        // Said as found: a long run shows its progress.
        for (const f of found) t.comment(f)
        findings.push(...found)
        if (answer.status === 0) {
          // Still stalled: a fresh service for the next probe.
          stalls++
          t.comment(`stalled: ${describe(req)}`)
          await stop(served)
          if (stalls >= MAX_STALLS) break outer
          served = await serve(profile)
        }
      }
    }
    t.comment(`profile ${profile}: ${sent} requests, statuses ${Object.entries(statuses).map(([k, v]) => `${k}:${v}`).join(' ')}, slowest answer ${slowest.toFixed(0)} ms, slowest /healthz ${slowestHealth.toFixed(0)} ms`)
    t.equal(findings.length, 0, `every adversarial string answered within ${ANSWER_MS} ms with /healthz within ${HEALTH_MS} ms`)
    t.equal(stalls, 0, 'no request stalled the service')
  })
}
