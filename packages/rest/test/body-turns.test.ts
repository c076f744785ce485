/**
 * A body's reading takes in a bounded part a turn (issue 27): a burst of
 * chunks the socket read at once (libuv reads up to 32 times 64 KiB in one
 * go) was copied into the body's buffer in one macrotask, 21-22 ms of
 * `Buffer.copy` for a 1.9 MB post. Now at most TURN_BYTES (and a chunk) are
 * taken in before the stream is paused until the next turn. Counted (bytes
 * between turns), never timed.
 */
import { Readable } from 'node:stream'
import t from 'tap'
import type { FastifyRequest } from 'fastify'
import { bodyCounts, readBody, TURN_BYTES } from '../src/body.js'

const CHUNK = 64 * 1024

function fakeRequest (declared: number | undefined, bodyLimit: number): FastifyRequest {
  return { routeOptions: { bodyLimit }, headers: declared === undefined ? {} : { 'content-length': String(declared) }, raw: {} } as unknown as FastifyRequest
}

/** A stream holding `chunks`, all pushed in one turn, as a socket's burst. */
function burst (chunks: Buffer[]): Readable {
  const stream = new Readable({ read () {} })
  for (const c of chunks) stream.push(c)
  stream.push(null)
  return stream
}

function chunksOf (bytes: number): Buffer[] {
  const chunks: Buffer[] = []
  for (let at = 0, i = 0; at < bytes; at += CHUNK, i++) chunks.push(Buffer.alloc(Math.min(CHUNK, bytes - at), i % 251))
  return chunks
}

/**
 * Reads `stream` with readBody, recording the bytes delivered in each synchronous run of 'data' events and the turn
 * (a setImmediate ticker) each run started in.
 */
async function readCounting (request: FastifyRequest, stream: Readable, limit: number): Promise<{ body: Buffer | Error, runs: Array<{ bytes: number, turn: number }> }> {
  let turn = 0
  let ticking = true
  const tick = (): void => { turn++; if (ticking) setImmediate(tick) }
  setImmediate(tick)
  const runs: Array<{ bytes: number, turn: number }> = []
  let inRun = false
  const reading = readBody(request, stream, limit)
  stream.on('data', (chunk: Buffer) => {
    if (!inRun) {
      inRun = true
      runs.push({ bytes: 0, turn })
      queueMicrotask(() => { inRun = false })
    }
    runs[runs.length - 1]!.bytes += chunk.length
  })
  try {
    return { body: await reading, runs }
  } catch (err) {
    return { body: err as Error, runs }
  } finally {
    ticking = false
  }
}

t.test('a 1.9 MB burst is taken in a bounded part a turn, and read whole', async (t) => {
  const chunks = chunksOf(1_900_000)
  const expected = Buffer.concat(chunks)
  const turns = bodyCounts.turns
  const { body, runs } = await readCounting(fakeRequest(expected.byteLength, 4 * 1024 * 1024), burst(chunks), 2 * 1024 * 1024)
  t.ok(Buffer.isBuffer(body) && body.equals(expected), 'the body as sent')
  const most = Math.max(...runs.map(r => r.bytes))
  t.ok(most <= TURN_BYTES + CHUNK, `at most ${TURN_BYTES} bytes and a chunk a turn (${most})`)
  t.ok(runs.length >= Math.floor(expected.byteLength / (TURN_BYTES + CHUNK)), `in ${runs.length} parts`)
  t.ok(runs.every((r, i) => i === 0 || r.turn > runs[i - 1]!.turn), 'each part in a turn of its own')
  t.equal(bodyCounts.turns - turns, runs.length - 1, 'a wait for the next turn between parts')
})

t.test('a chunked burst (no declared length) the same', async (t) => {
  const chunks = chunksOf(1_000_000)
  const expected = Buffer.concat(chunks)
  const { body, runs } = await readCounting(fakeRequest(undefined, 4 * 1024 * 1024), burst(chunks), 2 * 1024 * 1024)
  t.ok(Buffer.isBuffer(body) && body.equals(expected), 'the body as sent')
  t.ok(Math.max(...runs.map(r => r.bytes)) <= TURN_BYTES + CHUNK, 'a bounded part a turn')
})

t.test('limits as before: over the limit drained then refused 413; over the bound refused without reading', async (t) => {
  const chunks = chunksOf(1_000_000)
  const { body, runs } = await readCounting(fakeRequest(1_000_000, 2 * 1024 * 1024), burst(chunks), 512 * 1024)
  t.ok(body instanceof Error && (body as Error & { statusCode?: number, code?: string }).code === 'rest_request_too_large', '413 once read to its end')
  t.equal(runs.reduce((n, r) => n + r.bytes, 0), 1_000_000, 'the excess drained')
  t.ok(Math.max(...runs.map(r => r.bytes)) <= TURN_BYTES + CHUNK, 'a bounded part a turn while draining')
  const beyond = await readCounting(fakeRequest(9 * 1024 * 1024, 2 * 1024 * 1024), burst(chunksOf(CHUNK)), 512 * 1024)
  t.equal((beyond.body as Error & { code?: string }).code, 'rest_request_too_large', 'a declared length past the bound refused at once, unread')
})
