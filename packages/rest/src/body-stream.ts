/**
 * Request bodies that endpoints read themselves (`streamBody`): the raw
 * bytes with a byte limit, or the parts of a multipart body read by
 * @fastify/multipart as they arrive. Nothing is held whole in memory.
 */
import { Transform, type Readable } from 'node:stream'
import type { FastifyRequest } from 'fastify'
import type { MultipartFile, MultipartValue } from '@fastify/multipart'
import type { RestError } from './errors.js'

/**
 * A request body an endpoint reads itself (see `EndpointDecl.streamBody`):
 * nothing of it has been read when the handler starts.
 */
export interface BodyStream {
  /** The Content-Type header as sent ('' when absent). */
  readonly contentType: string
  /** Whether the body is `multipart/form-data` (read it with `parts()`, else with `bytes()`). */
  readonly multipart: boolean
  /** The body's bytes as they arrive; the stream fails with the endpoint's `tooLarge` error past `maxBytes`. */
  bytes (): Readable
  /**
   * The parts of a multipart body, in order: fields as text, files as
   * streams (read each file before asking for the next part). A file longer
   * than `maxBytes` fails with `tooLarge`.
   */
  parts (): AsyncIterable<BodyPart>
}

export type BodyPart =
  | { kind: 'field', name: string, value: string }
  | { kind: 'file', name: string, filename: string, contentType: string, stream: Readable }

/** What an endpoint that streams its body accepts. */
export interface StreamBodyOptions {
  /** The largest body (for multipart: the largest file) in bytes, read on each request. */
  maxBytes: () => number
  /** The error of a body over the limit (by its Content-Length before anything is read, or once that many bytes came). */
  tooLarge: () => RestError
}

/** Fields of a multipart upload are small: a megabyte each, a hundred at most. */
const FIELD_LIMITS = { fieldSize: 1024 * 1024, fields: 100, files: 1, parts: 101, headerPairs: 200 }

/** Throws the endpoint's error when the announced length is over its limit. */
export function tooLargeByLength (headers: Record<string, string | string[] | undefined>, opts: StreamBodyOptions): void {
  const length = Number(headers['content-length'])
  if (Number.isFinite(length) && length > opts.maxBytes()) throw opts.tooLarge()
}

/** A pass-through that fails once more than `max` bytes went through. */
function limited (max: number, tooLarge: () => RestError): Transform {
  let seen = 0
  return new Transform({
    transform (chunk: Buffer, _enc, done) {
      seen += chunk.length
      if (seen > max) return done(tooLarge())
      done(null, chunk)
    }
  })
}

export function bodyStreamOf (request: FastifyRequest, opts: StreamBodyOptions): BodyStream {
  const contentType = typeof request.headers['content-type'] === 'string' ? request.headers['content-type'] : ''
  const multipart = request.isMultipart()
  return {
    contentType,
    multipart,
    bytes (): Readable {
      const out = limited(opts.maxBytes(), opts.tooLarge)
      const raw = request.raw
      raw.on('error', (err) => out.destroy(err))
      // A refused body is not read further: the unread rest is discarded when the answer is sent.
      out.on('error', () => raw.unpipe(out))
      return raw.pipe(out)
    },
    async * parts (): AsyncIterable<BodyPart> {
      const max = opts.maxBytes()
      // One byte over the limit is kept, so a file that reaches it is known to be over.
      const parts = request.parts({ limits: { ...FIELD_LIMITS, fileSize: max + 1 } })
      for await (const part of parts) {
        if (part.type === 'field') {
          const field = part as MultipartValue<unknown>
          yield { kind: 'field', name: field.fieldname, value: typeof field.value === 'string' ? field.value : String(field.value) }
          continue
        }
        const file = part as MultipartFile
        yield { kind: 'file', name: file.fieldname, filename: file.filename, contentType: file.mimetype, stream: file.file.pipe(limited(max, opts.tooLarge)) }
      }
    }
  }
}
