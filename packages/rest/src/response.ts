/**
 * What a handler may return when plain data is not enough: a status, headers
 * (for example `Location` or the totals of a list) or both.
 */
export type HeaderValue = string | number | string[]

export class RestResponse {
  /**
   * Set by a handler whose body is a pure function of the request URL and this
   * tag (an object kept while the data is unchanged, for caller-independent
   * bodies only): the kernel then reuses the rendered bytes.
   */
  cacheTag?: object

  constructor (
    public body: unknown,
    public status = 200,
    public headers: Record<string, HeaderValue> = {}
  ) {}
}

export function cachedResponse (body: unknown, tag: object): RestResponse {
  const res = new RestResponse(body)
  res.cacheTag = tag
  return res
}

export function created (body: unknown, location: string): RestResponse {
  return new RestResponse(body, 201, { Location: location })
}

export function asResponse (result: unknown): RestResponse {
  return result instanceof RestResponse ? result : new RestResponse(result ?? null)
}
