/**
 * The headers every REST answer carries (Fastify's `onSend`): CORS for the
 * allowed origins, `Link` to the API root, `X-Robots-Tag`, `nosniff`, and
 * the no-cache headers of signed-in answers; `Connection: close` when part
 * of a body was left unread.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { INVALID_ROUTE, isRestPath } from './addressing.js'
import { restUrl } from './links.js'
import { keepsConnection } from './body.js'

export function addCommonHeaders (request: FastifyRequest, reply: FastifyReply, cors: string[] | '*'): void {
  const keep = keepsConnection(request)
  if (keep === false) reply.header('Connection', 'close')
  else if (keep === true) reply.removeHeader('connection')
  if (!isRestPath(request.url) && request.url !== INVALID_ROUTE) return
  reply.header('X-Robots-Tag', 'noindex')
  reply.header('X-Content-Type-Options', 'nosniff')
  if (!reply.hasHeader('link')) reply.header('Link', `<${restUrl(request.baseUrl, '/')}>; rel="https://api.cms.invalid/"`)
  reply.header('Access-Control-Expose-Headers', 'X-CMS-Total, X-CMS-TotalPages, Link, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After')
  reply.header('Access-Control-Allow-Headers', 'Authorization, X-CMS-Nonce, Content-Disposition, Content-MD5, Content-Type')
  const origin = request.headers.origin
  if (typeof origin === 'string' && origin !== '' && (cors === '*' || cors.includes(origin))) {
    reply.header('Access-Control-Allow-Origin', origin)
    reply.header('Access-Control-Allow-Methods', 'OPTIONS, GET, POST, PUT, PATCH, DELETE')
    reply.header('Access-Control-Allow-Credentials', 'true')
    reply.header('Vary', 'Origin')
  } else if ((request.principal?.id ?? 0) === 0 && request.method === 'GET') {
    reply.header('Vary', 'Origin')
  }
  const signedIn = (request.principal?.id ?? 0) !== 0
  if (signedIn || (request.methodOverridden && reply.statusCode >= 400)) {
    reply.header('Expires', 'Wed, 11 Jan 1984 05:00:00 GMT')
    reply.header('Cache-Control', 'no-cache, must-revalidate, max-age=0, no-store, private')
  }
}
