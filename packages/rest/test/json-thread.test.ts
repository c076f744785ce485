/**
 * Large JSON off the request thread (issue 27): a large request body is
 * parsed and a large answer serialized in the kernel's JSON thread
 * (json-thread.ts), with the same outcome as inline: the same value, the
 * same bytes, the same ETag, the same refusals. Counted, not timed.
 */
import { createHash } from 'node:crypto'
import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { endpoint, everyone, route } from '../src/index.js'
import { jsonThread, OFF_THREAD_BYTES, plainWeight } from '../src/json-thread.js'
import { MOVE_MIN_CHARS, movedCounts } from '../src/moved-strings.js'
import { bodyCounts } from '../src/body.js'
import { oneNamespaceApp } from './one-namespace.js'

const MARKUP = '<p>é &amp; "q" \\ \u2028 <b>x</b></p>'
const big = (chars: number): string => MARKUP.repeat(Math.ceil(chars / MARKUP.length))

class Stamp { toJSON (): string { return 'stamp' } }

async function build (): Promise<FastifyInstance> {
  const app = await oneNamespaceApp('json/v1', [route({
    namespace: 'json/v1',
    path: '/json/v1/echo',
    endpoints: [endpoint({
      methods: ['POST', 'GET'],
      args: { text: Type.Optional(Type.String()), size: Type.Optional(Type.Integer()), stamp: Type.Optional(Type.Boolean()) },
      permission: everyone.because('a test route (not probed)'),
      handler: (req) => {
        const text = typeof req.params.text === 'string' ? req.params.text : big(Number(req.params.size ?? 0))
        return { text, twice: [text, { nested: text }], n: 1, none: null, missing: undefined, ...(req.params.stamp === true ? { stamp: new Stamp() } : {}) }
      }
    })]
  })], {
    baseUrl: 'http://json.test',
    authenticate: async () => ({ id: 1, can: () => true })
  })
  return app
}

t.test('a large body is parsed in the thread, with the value an inline parse gives', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const text = big(OFF_THREAD_BYTES * 4)
  const before = { ...jsonThread.counts }
  const res = await app.inject({ method: 'POST', url: '/cms-json/json/v1/echo', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ text }) })
  t.equal(res.statusCode, 200)
  t.equal(jsonThread.counts.parsedOff, before.parsedOff + 1, 'parsed in the thread')
  t.equal(jsonThread.counts.serializedOff, before.serializedOff + 1, 'and answered from it')
  t.equal(res.body, JSON.stringify({ text, twice: [text, { nested: text }], n: 1, none: null }), 'the bytes JSON.stringify makes')
  const small = await app.inject({ method: 'POST', url: '/cms-json/json/v1/echo', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ text: 'short' }) })
  t.equal(small.json().text, 'short')
  t.equal(jsonThread.counts.parsedOff, before.parsedOff + 1, 'a small body is parsed inline')
  t.equal(jsonThread.counts.serializedOff, before.serializedOff + 1, 'and answered inline')
})

// Issue 27: long strings cross the threads as moved bytes (moved-strings.ts), not copies; counted, never timed.
t.test('long strings go to and from the thread as moved bytes, and come out the same', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  for (const text of [
    'Latin-1 é "quoted" \\ <b>x</b>\n'.repeat(MOVE_MIN_CHARS / 8),
    'wide ’ \u{1F600} \u2028 "q" <i>y</i>\n'.repeat(MOVE_MIN_CHARS / 8)
  ]) {
    const before = { ...movedCounts }
    for (const pretty of [false, true]) {
      const res = await app.inject({ method: 'POST', url: `/cms-json/json/v1/echo${pretty ? '?_pretty=1' : ''}`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ text }) })
      t.equal(res.statusCode, 200)
      const value = { text, twice: [text, { nested: text }], n: 1, none: null }
      t.equal(res.body, pretty ? JSON.stringify(value, null, 4) : JSON.stringify(value), `the bytes JSON.stringify makes${pretty ? ', pretty' : ''}`)
    }
    t.equal(movedCounts.restored - before.restored, 2, 'the body\'s long string came back from the thread as bytes, each time')
    t.equal(movedCounts.carried - before.carried, 6, 'the answer\'s three long strings went to the thread as bytes, each time')
  }
})

t.test('refusals of a large body are the inline ones', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const post = async (payload: string): Promise<{ status: number, body: unknown }> => {
    const res = await app.inject({ method: 'POST', url: '/cms-json/json/v1/echo', headers: { 'content-type': 'application/json' }, payload })
    return { status: res.statusCode, body: res.json() }
  }
  const before = jsonThread.counts.parsedOff
  const pad = ' '.repeat(OFF_THREAD_BYTES * 2)
  const deep = await post(`${pad}${'['.repeat(600)}${']'.repeat(600)}`)
  t.equal(deep.status, 413)
  t.match(deep.body, { code: 'rest_too_much_text', data: { status: 413, limit: 'maxDepth', max: 512 } }, 'the scan refuses too deep a body')
  const broken = await post(`{"text": "${big(OFF_THREAD_BYTES * 2)}`)
  t.same([broken.status, broken.body], [400, { code: 'rest_invalid_json', message: 'Invalid JSON body passed.', data: { status: 400, json_error_code: 4, json_error_message: 'Syntax error' } }], 'malformed JSON')
  const blank = await app.inject({ method: 'POST', url: '/cms-json/json/v1/echo?size=10', headers: { 'content-type': 'application/json' }, payload: pad })
  t.equal(blank.statusCode, 200, 'a blank body is no body')
  t.equal(jsonThread.counts.parsedOff, before + 3, 'all three in the thread')
})

t.test('a large GET answer: the same bytes and ETag; 304 on a match', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const before = jsonThread.counts.serializedOff
  const res = await app.inject({ method: 'GET', url: `/cms-json/json/v1/echo?size=${OFF_THREAD_BYTES * 2}` })
  t.equal(jsonThread.counts.serializedOff, before + 1, 'serialized in the thread')
  const text = big(OFF_THREAD_BYTES * 2)
  const expected = JSON.stringify({ text, twice: [text, { nested: text }], n: 1, none: null })
  t.equal(res.body, expected)
  t.equal(res.headers.etag, `W/"${createHash('sha1').update(expected).digest('base64url')}"`, 'the tag is the hash of the bytes, as inline')
  t.equal(Number(res.headers['content-length']), Buffer.byteLength(expected))
  const again = await app.inject({ method: 'GET', url: `/cms-json/json/v1/echo?size=${OFF_THREAD_BYTES * 2}`, headers: { 'if-none-match': String(res.headers.etag) } })
  t.equal(again.statusCode, 304)
  const pretty = await app.inject({ method: 'GET', url: `/cms-json/json/v1/echo?size=${OFF_THREAD_BYTES * 2}&_pretty=1` })
  t.equal(pretty.body, JSON.stringify(JSON.parse(expected), null, 4), '_pretty as inline')
  const envelope = await app.inject({ method: 'GET', url: `/cms-json/json/v1/echo?size=${OFF_THREAD_BYTES * 2}&_envelope=1` })
  t.same(envelope.json(), { body: JSON.parse(expected), status: 200, headers: { Allow: 'POST, GET' } }, '_envelope as inline')
  const jsonp = await app.inject({ method: 'GET', url: `/cms-json/json/v1/echo?size=${OFF_THREAD_BYTES * 2}&_jsonp=cb` })
  t.equal(jsonp.body, `/**/cb(${expected})`, '_jsonp, rendered inline')
  t.equal(jsonThread.counts.serializedOff, before + 4, 'pretty and envelope in the thread too')
})

t.test('an answer holding anything but plain data is serialized inline, as before', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const before = { ...jsonThread.counts }
  const res = await app.inject({ method: 'GET', url: `/cms-json/json/v1/echo?size=${OFF_THREAD_BYTES * 2}&stamp=1` })
  t.equal(res.json().stamp, 'stamp', 'its toJSON ran')
  t.equal(jsonThread.counts.serializedOff, before.serializedOff, 'not in the thread')
  t.equal(plainWeight({ a: 'xy', b: [1, null] }), 4 + 1 + 4 + 2 + 1 + 4 + 4 + 4, 'plain data weighs its characters and members')
  t.equal(plainWeight({ when: new Date(0) }), undefined, 'a Date is not plain')
  t.equal(plainWeight([1n]), undefined, 'nor a bigint')
  const cycle: Record<string, unknown> = {}
  cycle.self = cycle
  t.equal(plainWeight(cycle), undefined, 'a cycle ends the walk (and JSON.stringify refuses it inline, as before)')
})

/** Sends `body` over a real socket in pieces of 16 KiB: with its length declared, or chunked. */
async function sendInPieces (app: FastifyInstance, body: string, declared: boolean): Promise<{ status: number, text: string }> {
  const { port } = app.server.address() as AddressInfo
  const bytes = Buffer.from(body)
  return await new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/cms-json/json/v1/echo', headers: { 'content-type': 'application/json', ...(declared ? { 'content-length': String(bytes.byteLength) } : {}) } }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (c: Buffer) => parts.push(c))
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }) })
    })
    req.on('error', reject)
    for (let at = 0; at < bytes.byteLength; at += 16 * 1024) req.write(bytes.subarray(at, at + 16 * 1024))
    req.end()
  })
}

// Issue 27: a body's chunks are copied into one buffer as they arrive, not concatenated at its end (counted, never timed).
t.test('a large body is read into one buffer as it arrives: sized by its declared length, grown by doubling when chunked', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  // Under the 1 MiB bound of a string that declares none.
  const text = big(900 * 1024)
  const expected = JSON.stringify({ text, twice: [text, { nested: text }], n: 1, none: null })
  let before = { ...bodyCounts }
  const parsed = jsonThread.counts.parsedOff
  const declared = await sendInPieces(app, JSON.stringify({ text }), true)
  t.equal(declared.status, 200)
  t.equal(declared.text, expected, 'the body read whole (about 60 pieces of 16 KiB)')
  t.equal(bodyCounts.grown, before.grown, 'its declared length sized the buffer once: nothing grown or copied again')
  t.equal(jsonThread.counts.parsedOff, parsed + 1, 'and parsed in the thread')
  before = { ...bodyCounts }
  const chunked = await sendInPieces(app, JSON.stringify({ text }), false)
  t.equal(chunked.status, 200)
  t.equal(chunked.text, expected, 'a chunked body read whole')
  const grown = bodyCounts.grown - before.grown
  t.ok(grown >= 1 && grown <= 7, `grown by doubling from 64 KiB (${grown} times for 1 MB), not once per piece`)
  const small = await sendInPieces(app, JSON.stringify({ text: 'short' }), true)
  t.equal(JSON.parse(small.text).text, 'short', 'a small body too')
})
