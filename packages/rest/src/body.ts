/**
 * Reading request bodies under the limit. A body over the limit is answered
 * 413 only once the client has finished sending it: the rest is read and
 * dropped, as web servers' lingering close does, because a client still
 * sending when the server answers and closes sees a reset, not the answer.
 * Draining is bounded (a multiple of the limit, a few seconds); past the
 * bound the answer is sent and the connection closed.
 */
import type { FastifyRequest } from 'fastify'
import type { Readable } from 'node:stream'
import { kernelErrors } from './errors.js'

/** Bytes past the limit are drained up to this many times the limit in all. */
export const DRAIN_FACTOR = 4
/** And for at most this long after the limit was passed. */
export const DRAIN_MS = 5000
/**
 * Bytes a body's reading takes in at most in one turn of the event loop (then a chunk more at most): past them the
 * stream is paused and resumed on the next turn, so a burst of chunks the socket read at once (libuv reads up to 32
 * times 64 KiB in one go) is copied a part a turn, not 2 MB in one macrotask (21-22 ms of `Buffer.copy`, issue 27).
 */
export const TURN_BYTES = 256 * 1024

const BODY = Symbol('cms.rest.body')

type BodyState = 'read' | 'unread'

function mark (request: FastifyRequest, state: BodyState): void {
  (request.raw as unknown as Record<symbol, BodyState>)[BODY] = state
}

/**
 * Whether the connection may serve another request after this answer: not
 * when part of the body was left unread. Fastify closes after any body error;
 * a body read to its end (a drained 413, invalid JSON) leaves it usable.
 */
export function keepsConnection (request: FastifyRequest): boolean | undefined {
  const state = (request.raw as unknown as Record<symbol, BodyState | undefined>)[BODY]
  return state === undefined ? undefined : state === 'read'
}

function tooLarge (request: FastifyRequest, close: boolean): Error {
  mark(request, close ? 'unread' : 'read')
  return kernelErrors.rest_request_too_large()
}

/** The whole body (at most `limit` bytes), or a 413 after the excess was drained (or the bound reached). */
export async function readBody (request: FastifyRequest, payload: Readable, limit: number = request.routeOptions.bodyLimit ?? 1024 * 1024): Promise<Buffer> {
  // Drained as far as for any body: a JSON body over its own, smaller limit still gets a readable 413.
  const bound = Math.max(limit, request.routeOptions.bodyLimit ?? limit) * DRAIN_FACTOR
  const declared = Number(request.headers['content-length'])
  if (declared > bound) throw tooLarge(request, true)
  return await new Promise<Buffer>((resolve, reject) => {
    // Each chunk is copied into the body's buffer as it arrives (a copy of 64 KiB a turn), not concatenated at the
    // end: a 2 MB Buffer.concat held the request thread 20-30 ms under load (issue 27). The buffer is sized by the
    // declared length when it is within the limit, else grown by doubling; it is the body's own (never the shared
    // pool's, from 4 KiB), so the JSON thread can take it without a copy.
    let body: Buffer | undefined = declared >= 0 && declared <= limit ? Buffer.allocUnsafe(declared) : undefined
    let received = 0
    let timer: NodeJS.Timeout | undefined
    // Bytes taken in since the last pause for a turn (TURN_BYTES); whether the next turn's resume is pending; whether finished.
    let sinceTurn = 0
    let pausedForTurn = false
    let done = false
    const nextTurn = (): void => {
      pausedForTurn = false
      sinceTurn = 0
      if (!done) payload.resume()
    }
    const finish = (error: Error | undefined, value?: Buffer): void => {
      done = true
      payload.removeListener('data', onData)
      payload.removeListener('end', onEnd)
      payload.removeListener('error', onError)
      if (timer !== undefined) clearTimeout(timer)
      if (error !== undefined) reject(error)
      else resolve(value!)
    }
    const giveUp = (): void => {
      payload.pause()
      finish(tooLarge(request, true))
    }
    const onData = (chunk: Buffer): void => {
      const at = received
      received += chunk.length
      if (received <= limit) {
        body = room(body, received, limit)
        chunk.copy(body, at)
      } else {
        if (timer === undefined) {
          // Over the limit: keep nothing more, and stop reading at the bound.
          body = undefined
          timer = setTimeout(giveUp, DRAIN_MS)
          timer.unref()
        }
        if (received > bound) {
          giveUp()
          return
        }
      }
      sinceTurn += chunk.length
      if (sinceTurn >= TURN_BYTES && !pausedForTurn && !done) {
        // Enough for this turn: the rest waits in the stream (and the socket stops reading once its buffer is full).
        pausedForTurn = true
        bodyCounts.turns++
        payload.pause()
        setImmediate(nextTurn)
      }
    }
    const onEnd = (): void => {
      if (received > limit) finish(tooLarge(request, false))
      else {
        mark(request, 'read')
        finish(undefined, body === undefined ? Buffer.alloc(0) : body.byteLength === received ? body : body.subarray(0, received))
      }
    }
    const onError = (err: Error): void => { finish(err) }
    payload.on('data', onData)
    payload.on('end', onEnd)
    payload.on('error', onError)
    payload.resume()
  })
}

/** `body` when it holds `size` bytes, else a larger copy (twice as large, at most `limit`; at least 64 KiB). */
function room (body: Buffer | undefined, size: number, limit: number): Buffer {
  if (body !== undefined && body.byteLength >= size) return body
  const grown = Buffer.allocUnsafe(Math.min(limit, Math.max(size, 64 * 1024, 2 * (body?.byteLength ?? 0))))
  body?.copy(grown)
  bodyCounts.grown++
  return grown
}

/**
 * Times a body's buffer was grown (a chunked body, or one longer than declared), and times a body's reading waited for
 * the next turn after TURN_BYTES (for tests that count the work, never for timing).
 */
export const bodyCounts = { grown: 0, turns: 0 }

/**
 * Reads and discards what is left of a body its endpoint stopped reading (a
 * streamed upload refused before or while it was read), up to `DRAIN_FACTOR`
 * times `limit` bytes in all and `DRAIN_MS`, so a client still sending reads
 * the answer instead of a reset. Whether the whole body was read (then the
 * connection stays usable).
 */
export async function drainRest (request: FastifyRequest, limit: number): Promise<boolean> {
  const raw = request.raw
  // Read to its end (a real socket's message says `complete`; an injected one only that it ended).
  if (raw.complete || raw.readableEnded) return true
  const bound = limit * DRAIN_FACTOR
  const declared = Number(request.headers['content-length'])
  if (declared > bound || raw.destroyed) return false
  raw.unpipe()
  return await new Promise<boolean>((resolve) => {
    let received = 0
    const finish = (complete: boolean): void => {
      clearTimeout(timer)
      raw.removeListener('data', onData)
      raw.removeListener('end', onEnd)
      raw.removeListener('error', onError)
      if (!complete) raw.pause()
      resolve(complete)
    }
    const onData = (chunk: Buffer): void => {
      received += chunk.length
      if (received > bound) finish(false)
    }
    const onEnd = (): void => { finish(true) }
    const onError = (): void => { finish(false) }
    const timer = setTimeout(() => { finish(false) }, DRAIN_MS)
    timer.unref()
    raw.on('data', onData)
    raw.on('end', onEnd)
    raw.on('error', onError)
    raw.resume()
  })
}
