/**
 * Request bodies as the core reads them: JSON (and `+json` types), form
 * encoding read the PHP way, and anything else read and ignored; each read
 * under the body limit by body.ts.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { kernelErrors } from './errors.js'
import { parseQuery } from './params.js'
import { readBody } from './body.js'

export function installBodyParsers (app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  // Parsers read the body themselves (body.ts): past the limit it is drained before the 413.
  const parseJson = async (request: FastifyRequest, payload: IncomingMessage): Promise<unknown> => {
    const body = (await readBody(request, payload)).toString('utf8')
    if (body.trim() === '') return undefined
    try {
      return JSON.parse(body)
    } catch {
      throw kernelErrors.rest_invalid_json({ json_error_code: 4, json_error_message: 'Syntax error' })
    }
  }
  app.addContentTypeParser('application/json', parseJson)
  app.addContentTypeParser(/^application\/[\w.+-]*\+json/, parseJson)
  app.addContentTypeParser('application/x-www-form-urlencoded', async (request: FastifyRequest, payload: IncomingMessage) => {
    return parseQuery((await readBody(request, payload)).toString('utf8'))
  })
  // Other bodies are read (so the connection stays usable) and ignored, as the core does.
  app.addContentTypeParser('*', async (request: FastifyRequest, payload: IncomingMessage) => {
    await readBody(request, payload)
    return undefined
  })
}
