/**
 * Request bodies as the core reads them: JSON (and `+json` types), form
 * encoding read the PHP way, and anything else read and ignored; each read
 * under a limit by body.ts. Bodies that become values (JSON, forms) have a
 * limit of their own, far below the upload limit, and a JSON text is
 * scanned for its nesting and strings (json-scan.ts) before it is parsed,
 * a large one in the kernel's JSON thread (json-thread.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { kernelErrors, RestError } from './errors.js'
import { parseQuery } from './params.js'
import { readBody } from './body.js'
import { DEFAULT_TEXT_LIMITS, type TextLimits } from './json-scan.js'
import { jsonThread } from './json-thread.js'

/** The largest JSON or form body by default, in bytes. */
export const DEFAULT_JSON_BODY_LIMIT = 2 * 1024 * 1024

export interface BodyLimits {
  /** The largest JSON or form body in bytes (at most the server's body limit). */
  jsonBodyLimit?: number
  /** What a JSON body may hold (json-scan.ts). */
  textLimits?: TextLimits
}

export function installBodyParsers (app: FastifyInstance, limits: BodyLimits = {}): void {
  const textLimits = limits.textLimits ?? DEFAULT_TEXT_LIMITS
  const parsedLimit = (request: FastifyRequest): number => Math.min(limits.jsonBodyLimit ?? DEFAULT_JSON_BODY_LIMIT, request.routeOptions.bodyLimit ?? Infinity)
  app.removeAllContentTypeParsers()
  // Parsers read the body themselves (body.ts): past the limit it is drained before the 413.
  const parseJson = async (request: FastifyRequest, payload: IncomingMessage): Promise<unknown> => {
    // Decoded, scanned (nesting and strings counted before anything is built) and parsed; a large body in the JSON thread.
    const outcome = await jsonThread.parse(await readBody(request, payload, parsedLimit(request)), textLimits)
    if ('value' in outcome) return outcome.value
    if ('empty' in outcome) return undefined
    if ('refused' in outcome) {
      const { code, message, status, data: { status: _status, ...extra } } = outcome.refused
      throw new RestError(code, message, status, extra)
    }
    throw kernelErrors.rest_invalid_json({ json_error_code: 4, json_error_message: 'Syntax error' })
  }
  app.addContentTypeParser('application/json', parseJson)
  app.addContentTypeParser(/^application\/[\w.+-]*\+json/, parseJson)
  app.addContentTypeParser('application/x-www-form-urlencoded', async (request: FastifyRequest, payload: IncomingMessage) => {
    return parseQuery((await readBody(request, payload, parsedLimit(request))).toString('utf8'))
  })
  // Other bodies are read (so the connection stays usable) and ignored, as the core does.
  app.addContentTypeParser('*', async (request: FastifyRequest, payload: IncomingMessage) => {
    await readBody(request, payload)
    return undefined
  })
}
