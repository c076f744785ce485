/**
 * Conditional writes: `If-Match` and `If-Unmodified-Since` are checked against
 * the resource as a GET of the same path returns it now. Resources that want
 * version-exact tags set their own `ETag` (and `Last-Modified`) on GET.
 */
import type { FastifyRequest } from 'fastify'
import { kernelErrors } from './errors.js'
import type { RestRequest } from './route.js'

const bare = (tag: string): string => tag.trim().replace(/^W\//, '')

export async function checkPreconditions (request: Pick<FastifyRequest, 'headers'>, req: RestRequest): Promise<void> {
  const ifMatch = request.headers['if-match']
  const ifUnmodified = request.headers['if-unmodified-since']
  if (ifMatch === undefined && ifUnmodified === undefined) return
  const current = await req.dispatch({ method: 'GET', path: req.path, query: { context: 'edit' } })
  if (current.status !== 200) {
    if (ifMatch !== undefined) throw kernelErrors.rest_precondition_failed()
    return
  }
  if (typeof ifMatch === 'string') {
    const tag = current.headers.Etag ?? current.headers.ETag
    const tags = ifMatch.split(',').map(bare)
    if (!tags.includes('*') && (tag === undefined || !tags.includes(bare(String(tag))))) {
      throw kernelErrors.rest_precondition_failed()
    }
  }
  if (typeof ifUnmodified === 'string') {
    const since = Date.parse(ifUnmodified)
    const modified = current.headers['Last-Modified']
    if (!Number.isNaN(since) && modified !== undefined && Date.parse(String(modified)) > since) {
      throw kernelErrors.rest_precondition_failed()
    }
  }
}
