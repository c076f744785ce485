/**
 * Request bodies as the core reads them: JSON (and `+json` types), form
 * encoding read the PHP way, and anything else read and ignored.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { kernelErrors } from './errors.js'
import { parseQuery } from './params.js'

export function installBodyParsers (app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  const parseJson = (_req: FastifyRequest, body: string, done: (err: Error | null, body?: unknown) => void): void => {
    if (body.trim() === '') return done(null, undefined)
    try {
      done(null, JSON.parse(body))
    } catch {
      done(kernelErrors.rest_invalid_json({ json_error_code: 4, json_error_message: 'Syntax error' }))
    }
  }
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson)
  app.addContentTypeParser(/^application\/[\w.+-]*\+json/, { parseAs: 'string' }, parseJson)
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, parseQuery(body as string))
  })
  // Other bodies are read (so the connection stays usable) and ignored, as the core does.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, _body, done) => { done(null, undefined) })
}
