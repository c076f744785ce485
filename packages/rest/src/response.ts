/**
 * What a handler may return when plain data is not enough: a status, headers
 * (for example `Location` or the totals of a list) or both.
 */
import { restUrl } from './links.js'

export type HeaderValue = string | number | string[]

export class RestResponse {
  constructor (
    public body: unknown,
    public status = 200,
    public headers: Record<string, HeaderValue> = {}
  ) {}
}

export function created (body: unknown, location: string): RestResponse {
  return new RestResponse(body, 201, { Location: location })
}

export function asResponse (result: unknown): RestResponse {
  return result instanceof RestResponse ? result : new RestResponse(result ?? null)
}

/**
 * A body sent as bytes rather than JSON (a file download): the handler's
 * status and headers, then the stream `open` gives, piped as it is (never
 * read whole). Not opened for HEAD. Not for batch or `_embed`.
 */
export class StreamBody {
  constructor (
    readonly open: () => NodeJS.ReadableStream,
    readonly contentType: string
  ) {}
}

/**
 * `201 Created` for an item made by a collection route: its `Location` is
 * the collection's own path (the route the request matched) and the id.
 */
export function createdAt (req: { readonly baseUrl: string, readonly routePath: string }, body: unknown, id: number | string): RestResponse {
  return created(body, restUrl(req.baseUrl, `${req.routePath}/${id}`))
}
