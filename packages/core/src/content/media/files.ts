/**
 * The uploaded files, served at `{base}/cms-content/uploads/...` (each
 * attachment's `source_url`): the type their name says (only allowed types
 * are ever stored), `nosniff` and a sandboxing policy so no file runs as a
 * page, range requests, validators and a day of public caching.
 */
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { MediaServices as Services } from './services.js'
import { UPLOADS_PATH } from '../index.js'
import { safeKey, type ServedFile } from './storage.js'

export interface MediaFilesOptions { services: Services }

export async function mediaFiles (app: FastifyInstance, opts: MediaFilesOptions): Promise<void> {
  const { storage } = opts.services.media
  app.route({
    method: 'GET',
    url: `${UPLOADS_PATH}/*`,
    schema: { hide: true } as Record<string, unknown>,
    handler: async (request, reply) => {
      const key = safeKey(String((request.params as Record<string, string>)['*'] ?? ''))
      const served = key === undefined ? undefined : await storage.serve(request.raw, key)
      return await replyWithFile(reply, served)
    }
  })
}

/**
 * Sends what a storage's `serve` answered (or 404 for undefined): `nosniff`,
 * a sandboxing policy so no file runs as a page, 416 with the length, a
 * plain 404 for anything else that failed. Package files use it too.
 */
export async function replyWithFile (reply: FastifyReply, served: ServedFile | undefined): Promise<FastifyReply> {
  void reply.header('X-Content-Type-Options', 'nosniff')
  if (served === undefined || served.statusCode >= 400) {
    served?.stream.destroy()
    // A range past the end is answered 416 with the file's length (Content-Range).
    if (served?.statusCode === 416) return await reply.code(416).headers(served.headers).send()
    return await reply.code(404).type('text/plain; charset=utf-8').send('Not found')
  }
  void reply.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
  void reply.header('Cross-Origin-Resource-Policy', 'cross-origin')
  void reply.headers(served.headers).code(served.statusCode)
  return await reply.send(served.stream)
}
