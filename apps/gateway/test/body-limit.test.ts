/**
 * A body over the limit is a 413 the client reads, over a real port: the
 * service drains what the client still sends before answering, so Node's
 * `fetch` (undici), curl and a slow client all see the answer, and the
 * connection stays usable. Nothing is created. Past the drain bound (four
 * times the limit) the answer is sent and the connection closed.
 */
import t from 'tap'
import http from 'node:http'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { writeFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect } from 'node:net'
import { once } from 'node:events'
import { DRAIN_MS } from '@cms/rest'
import { gatewayApp, listenLoopback, type GatewayApp } from './helpers.js'
import { createCaller } from '@cms/core/testing'

const run = promisify(execFile)
const MiB = 1024 * 1024

/** Posts of any status, as an administrator lists them. */
async function postCount (h: GatewayApp, admin: Record<string, string>): Promise<number> {
  const res = await h.app.inject({ method: 'GET', url: '/cms-json/cms/v2/posts?status=any&context=edit', headers: admin })
  return Number(res.headers['x-cms-total'])
}

/** One service for the file, on the default limit (8 MiB). */
const shared = (async () => {
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A' } })
  t.teardown(h.close)
  const admin = (await createCaller(h.store, 'administrator')).headers
  return { h, admin, base: await listenLoopback(h.app) }
})()

t.test('a 9 MiB body gets a readable 413 over a real port', async (t) => {
  const { h, admin, base } = await shared
  const url = `${base}/index.php?rest_route=/cms/v2/posts`
  const title = 'x'.repeat(9 * MiB)
  const bodies = [
    ['application/json', JSON.stringify({ title, status: 'publish' })],
    ['application/x-www-form-urlencoded', `status=publish&title=${title}`],
    ['text/plain', title]
  ] as const

  for (const [type, body] of bodies) {
    const res = await fetch(url, { method: 'POST', headers: { ...admin, 'content-type': type }, body })
    t.equal(res.status, 413, `fetch, ${type}: 413`)
    const answer = await res.json() as { code: string, data: { status: number } }
    t.equal(answer.code, 'rest_request_too_large', `fetch, ${type}: the error body`)
    t.equal(answer.data.status, 413)
    t.not(res.headers.get('connection'), 'close', `fetch, ${type}: the connection stays open`)
  }

  // A body streamed without a length (chunked).
  const chunks = Array.from({ length: 18 }, () => new Uint8Array(MiB / 2).fill(120))
  const stream = new ReadableStream({ pull (c) { const next = chunks.shift(); if (next === undefined) c.close(); else c.enqueue(next) } })
  const chunked = await fetch(url, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit)
  t.equal(chunked.status, 413, 'fetch, chunked: 413')
  t.equal(((await chunked.json()) as { code: string }).code, 'rest_request_too_large')

  // curl sends `Expect: 100-continue`, then the body.
  const dir = await mkdtemp(join(tmpdir(), 'cms-body-limit-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  for (const [type, body] of bodies) {
    const file = join(dir, 'body')
    await writeFile(file, body)
    const { stdout } = await run('curl', ['-sS', '-X', 'POST', '-H', `content-type: ${type}`, '-H', `authorization: ${admin.authorization!}`,
      '--data-binary', `@${file}`, '-w', '\n%{http_code}', url], { maxBuffer: 4 * MiB })
    const lines = stdout.trimEnd().split('\n')
    t.equal(lines.at(-1), '413', `curl, ${type}: 413`)
    t.equal(JSON.parse(lines.slice(0, -1).join('\n')).code, 'rest_request_too_large', `curl, ${type}: the error body`)
  }

  t.equal(await postCount(h, admin), 0, 'nothing was created')
  const small = await fetch(url, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'small' }) })
  t.equal(small.status, 201, 'a body under the limit is still accepted')
  t.equal(await postCount(h, admin), 1)
})

/**
 * Announces `announced` bytes, sends `sent` of them, and reads until the server closes;
 * as `authorization` (an anonymous caller is refused before any body is read).
 */
async function rawPost (base: string, announced: number, sent: number, authorization: string): Promise<{ text: string, closed: boolean }> {
  const { hostname, port } = new URL(base)
  const socket = connect(Number(port), hostname)
  await once(socket, 'connect')
  socket.write(`POST /cms-json/cms/v2/posts HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nAuthorization: ${authorization}\r\nContent-Length: ${announced}\r\n\r\n`)
  if (sent > 0) socket.write(Buffer.alloc(sent, 'x'))
  let text = ''
  socket.setEncoding('utf8')
  socket.on('data', (c: string) => { text += c })
  let timedOut = false
  const timer = setTimeout(() => { timedOut = true; socket.destroy() }, 3 * DRAIN_MS)
  await once(socket, 'close')
  clearTimeout(timer)
  return { text, closed: !timedOut }
}

/** POSTs `total` bytes in chunks with pauses (a slow client); resolves with what it saw. */
async function slowPost (base: string, total: number, headers: Record<string, string>): Promise<{ status?: number, body: string, error?: string }> {
  const { hostname, port } = new URL(base)
  return await new Promise((resolve) => {
    let status: number | undefined
    let body = ''
    const req = http.request({ host: hostname, port, method: 'POST', path: '/cms-json/cms/v2/posts', agent: false, headers: { ...headers, 'content-length': total } }, (res) => {
      status = res.statusCode
      res.setEncoding('utf8')
      res.on('data', (c: string) => { body += c })
      res.on('end', () => { resolve({ status, body }) })
    })
    req.on('error', (e) => { resolve({ status, body, error: e.message }) })
    const chunk = Buffer.alloc(MiB / 2, 'x')
    let sent = 0
    const tick = (): void => {
      if (sent >= total || req.destroyed) { req.end(); return }
      const n = Math.min(chunk.length, total - sent)
      req.write(n === chunk.length ? chunk : chunk.subarray(0, n))
      sent += n
      setTimeout(tick, 10)
    }
    tick()
  })
}

t.test('a slow client still sending when the limit is passed reads the 413', async (t) => {
  const { h, admin, base } = await shared
  const within = await slowPost(base, 9 * MiB, { ...admin, 'content-type': 'application/json' })
  t.equal(within.error, undefined, 'no reset while sending')
  t.equal(within.status, 413)
  t.equal(JSON.parse(within.body).code, 'rest_request_too_large')

  // Past the bound (4 x 8 MiB announced): answered at once, and the connection is closed.
  const announced = await rawPost(base, 33 * MiB, 0, admin.authorization!)
  t.match(announced.text, /^HTTP\/1\.1 413 /, 'past the bound: 413 before any byte of the body')
  t.match(announced.text, /\r\nconnection: close\r\n/i, 'past the bound: the connection is closed')
  t.match(announced.text, /"rest_request_too_large"/)
  t.ok(announced.closed, 'the server closed it')

  // Over the limit, within the bound, then silent: answered after a few seconds, and closed.
  const started = Date.now()
  const stalled = await rawPost(base, 20 * MiB, 8 * MiB + 1, admin.authorization!)
  t.match(stalled.text, /^HTTP\/1\.1 413 /, 'a stalled body: 413')
  t.match(stalled.text, /\r\nconnection: close\r\n/i, 'a stalled body: the connection is closed')
  t.ok(Date.now() - started >= DRAIN_MS - 100, 'after the drain time')
  t.ok(stalled.closed, 'the server closed it')
  t.equal((await fetch(`${base}/healthz`)).status, 200, 'the service still serves')
  t.equal(await postCount(h, admin), 1, 'nothing more was created')
})
