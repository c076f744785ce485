/**
 * test-all: alone (it measures its own process's CPU time: scripts/test-run.mjs runs it in a
 * process of its own, not in a batch where another file's leftovers could add to the figure).
 * Long request targets and large query strings and form bodies (issue #11,
 * item 1) are answered at once, in the error shape, while other requests go
 * on: the kernel answers a target longer than CMS_MAX_URL_LENGTH 414 before
 * anything parses it, Node answers a head larger than that plus 16 KiB 431,
 * and where the limit is raised the PHP-style query parser reads what it is
 * given in linear time. The service listens on a loopback port of this
 * process; each input's cost is the CPU this process spends on it (the
 * service's parsing and the client's sending: a quadratic parse, 13 s of a
 * megabyte of `[` before, is CPU, and a blocked event loop is CPU spent),
 * compared with plain text of the same size sent in the same run. Wall
 * times are printed, never compared: other processes stretch them.
 */
import t, { type Test } from 'tap'
import { connect } from 'node:net'
import { request } from 'undici'
import { gatewayApp, listenLoopback } from './helpers.js'

interface Served { base: string, port: number }

async function serve (t: Test, env: Record<string, string>): Promise<Served> {
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A', ...env } })
  t.teardown(h.close)
  const base = await listenLoopback(h.app)
  return { base, port: Number(new URL(base).port) }
}

interface Answer { status: number, cpu: number, ms: number, body: string }

const cpuMs = (since: NodeJS.CpuUsage): number => { const used = process.cpuUsage(since); return (used.user + used.system) / 1000 }

/** Sends a request: its answer, the CPU time this process spent on it (service and client) and its wall time (printed only). */
async function probe (base: string, path: string, init: { method?: 'GET' | 'POST', headers?: Record<string, string>, body?: string } = {}): Promise<Answer> {
  const cpu = process.cpuUsage()
  const started = performance.now()
  const res = await request(base + path, { method: init.method ?? 'GET', headers: init.headers, body: init.body, headersTimeout: 600_000, bodyTimeout: 600_000 })
  const body = await res.body.text()
  return { status: res.statusCode, cpu: cpuMs(cpu), ms: performance.now() - started, body }
}

/** The cheaper of `n` runs (a collection may land in one; an input that is costly to read is costly every time). */
async function best (run: () => Promise<Answer>, n = 3): Promise<Answer> {
  const runs: Answer[] = []
  for (let i = 0; i < n; i++) runs.push(await run())
  return runs.sort((a, b) => a.cpu - b.cpu)[0]!
}

/** Sends raw bytes and reads until the server closes the connection. */
async function raw (port: number, head: string): Promise<{ text: string, ms: number }> {
  const started = performance.now()
  const socket = connect(port, '127.0.0.1')
  let text = ''
  socket.setEncoding('utf8')
  socket.on('data', (chunk: string) => { text += chunk })
  socket.on('error', () => {})
  const closed = new Promise((resolve) => socket.on('close', resolve))
  socket.write(head)
  await closed
  return { text, ms: performance.now() - started }
}

const MB = 1_000_000

t.test('default limit: a target over 8192 characters is answered 414, a head over the allowance 431, both in the error shape', async (t) => {
  const served = await serve(t, {})
  // An argument the route does not take (a search is bounded at 1,000 characters: 400).
  const path = '/cms-json/cms/v2/posts?q='
  const within = await request(`${served.base}${path}${'a'.repeat(8192 - path.length)}`)
  t.equal(within.statusCode, 200, 'a target of 8192 characters is served')
  await within.body.text()
  const over = await request(`${served.base}${path}${'a'.repeat(8193 - path.length)}`)
  t.equal(over.statusCode, 414, 'one more character: 414')
  t.same(await over.body.json(), { code: 'rest_uri_too_long', message: 'A part of the request URL is too long.', data: { status: 414 } })

  const big = await raw(served.port, `GET /cms-json/cms/v2/posts?${'['.repeat(MB)} HTTP/1.1\r\nHost: cms.test\r\n\r\n`)
  t.match(big.text, /^HTTP\/1\.1 431 /, `a megabyte of query string: 431 (${big.ms.toFixed(0)} ms)`)
  const json = JSON.parse(big.text.slice(big.text.indexOf('\r\n\r\n') + 4)) as unknown
  t.same(json, { code: 'rest_headers_too_large', message: 'The request headers are larger than the allowed limit.', data: { status: 431 } })
  const health = await request(`${served.base}/healthz`)
  t.equal(health.statusCode, 200, 'the service answers afterwards')
  await health.body.text()
})

t.test('raised limit: a megabyte of brackets, escapes or markup in a query string or form body costs what plain text of that size does', async (t) => {
  const served = await serve(t, { CMS_MAX_URL_LENGTH: String(4 * MB) })
  const route = '/cms-json/cms/v2/posts'
  await probe(served.base, route) // warm
  const query = await best(async () => await probe(served.base, `${route}?q=${'a'.repeat(MB)}`))
  const form = await best(async () => await probe(served.base, route, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `q=${'a'.repeat(MB)}` }))
  t.equal(query.status, 200)
  t.equal(form.status, 401, 'an anonymous create: refused after its body is read')
  // Seconds of CPU when quadratic (13 s for a megabyte of `[` measured before): a bound well above noise and far below that.
  const bound = (baseline: Answer): number => 200 + 3 * baseline.cpu
  t.comment(`baselines: query ${query.cpu.toFixed(0)} ms of CPU (${query.ms.toFixed(0)} ms), form ${form.cpu.toFixed(0)} ms of CPU (${form.ms.toFixed(0)} ms)`)
  const inputs: Record<string, string> = {
    '[': '['.repeat(MB),
    '%5B': '%5B'.repeat(MB / 3),
    'a[': 'a['.repeat(MB / 2),
    'a[b]…=1': `a${'[b]'.repeat(MB / 3)}=1`,
    'x[]=1&': 'x[]=1&'.repeat(MB / 6),
    '&': '&'.repeat(MB),
    'search=<': `search=${'%3C'.repeat(MB / 3)}`,
    '%C3%A9': `search=${'%C3%A9'.repeat(MB / 6)}`
  }
  for (const [label, input] of Object.entries(inputs)) {
    const q = await best(async () => await probe(served.base, `${route}?${input}`), 2)
    t.ok(q.status < 500 && q.cpu < bound(query), `query ${label}: ${q.status} using ${q.cpu.toFixed(0)} ms of CPU (bound ${bound(query).toFixed(0)} ms; ${q.ms.toFixed(0)} ms)`)
    const f = await best(async () => await probe(served.base, route, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: input }), 2)
    t.ok(f.status < 500 && f.cpu < bound(form), `form ${label}: ${f.status} using ${f.cpu.toFixed(0)} ms of CPU (bound ${bound(form).toFixed(0)} ms; ${f.ms.toFixed(0)} ms)`)
  }
  const health = await request(`${served.base}/healthz`)
  t.equal(health.statusCode, 200, 'the service answers afterwards')
  await health.body.text()
})
