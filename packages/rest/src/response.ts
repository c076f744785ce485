/**
 * What a handler may return when plain data is not enough: a status, headers
 * (for example `Location` or the totals of a list) or both.
 */
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
