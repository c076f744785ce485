/**
 * Every error the kernel raises is declared here once: its code, HTTP status
 * and message. Namespace packages declare their own catalogues with
 * `declareErrors` and throw by name.
 */

export interface ErrorData {
  status: number
  [key: string]: unknown
}

export interface ErrorBody {
  code: string
  message: string
  data: ErrorData | null
  additional_errors?: Array<{ code: string; message: string; data: unknown }>
  additional_data?: unknown[]
}

/** The one error type of the service; rendered as `{code, message, data}`. */
export class RestError extends Error {
  readonly code: string
  readonly status: number
  readonly data: ErrorData

  constructor (code: string, message: string, status: number, extra?: Record<string, unknown>) {
    super(message)
    this.name = 'RestError'
    this.code = code
    this.status = status
    this.data = { status, ...extra }
  }

  /** The same error with another status (401 versus 403, for instance). */
  withStatus (status: number): RestError {
    if (decidingOnly) return REFUSED
    const { status: _old, ...extra } = this.data
    return new RestError(this.code, this.message, status, extra)
  }

  toBody (): ErrorBody {
    return { code: this.code, message: this.message, data: this.data }
  }
}

interface ErrorSpec {
  status: number
  message: string
}

type Catalogue = Record<string, ErrorSpec>

/** A throwable factory per declared code: `errors.rest_no_route()`. */
export type ErrorFactories<C extends Catalogue> = {
  [K in keyof C]: ErrorFactory
}

export function declareErrors<C extends Catalogue> (catalogue: C): ErrorFactories<C> {
  const out = {} as ErrorFactories<C>
  for (const code of Object.keys(catalogue) as Array<keyof C & string>) {
    const spec = catalogue[code]!
    out[code] = (extra, message) => decidingOnly ? REFUSED : new RestError(code, message ?? spec.message, spec.status, extra)
  }
  return out
}

/** Set while a refusal only decides (`decideOnly`): declared errors are then this one, built once. */
let decidingOnly = false
const REFUSED = new RestError('rest_forbidden', 'Refused.', 403)

/**
 * Runs `fn` (a permission check whose refusal only decides something, such
 * as the Allow header's list of methods): every declared error it makes
 * before its first `await` (all of them, for most checks) is one shared
 * error instead of a new object, since nobody reads it. Nothing else runs
 * meanwhile: the flag is reset before any other code can make an error.
 */
export function decideOnly<T> (fn: () => T): T {
  const before = decidingOnly
  decidingOnly = true
  try {
    return fn()
  } finally {
    decidingOnly = before
  }
}

/** A permission error with the status the caller gets: 401 anonymous, 403 signed in (as the core does). */
export function denied (error: RestError, userId: number): RestError {
  return error.withStatus(userId === 0 ? 401 : 403)
}

/**
 * A declared error under a family's own default message (`rest_cannot_edit`
 * says "this user" in the users routes): the code and status stay those of
 * the one declaration.
 */
export function reworded (factory: ErrorFactory, message: string): ErrorFactory {
  return (extra, given) => factory(extra, given ?? message)
}

export type ErrorFactory = (extra?: Record<string, unknown>, message?: string) => RestError

export const kernelErrors = declareErrors({
  rest_no_route: { status: 404, message: 'No route was found matching the URL and request method.' },
  rest_invalid_json: { status: 400, message: 'Invalid JSON body passed.' },
  rest_invalid_body: { status: 400, message: 'The request body could not be read.' },
  rest_request_too_large: { status: 413, message: 'The request body is larger than the allowed limit.' },
  rest_too_much_text: { status: 413, message: 'The request holds too much text to process.' },
  rest_unsupported_media_type: { status: 415, message: 'The request body has an unsupported content type.' },
  rest_invalid_param: { status: 400, message: 'Invalid parameter(s).' },
  rest_missing_callback_param: { status: 400, message: 'Missing parameter(s).' },
  rest_invalid_namespace: { status: 404, message: 'The specified namespace could not be found.' },
  rest_forbidden: { status: 401, message: 'Sorry, you are not allowed to do that.' },
  rest_forbidden_context: { status: 401, message: 'Sorry, you are not allowed to edit posts in this post type.' },
  rest_callback_invalid: { status: 400, message: 'Invalid JSONP callback function.' },
  rest_path_invalid_type: { status: 400, message: 'The REST route parameter must be a string.' },
  rest_precondition_failed: { status: 412, message: 'The resource has changed since the given precondition.' },
  rest_invalid_path: { status: 400, message: 'The path is not allowed.' },
  rest_invalid_url: { status: 400, message: 'The request URL could not be decoded.' },
  rest_uri_too_long: { status: 414, message: 'A part of the request URL is too long.' },
  rest_headers_too_large: { status: 431, message: 'The request headers are larger than the allowed limit.' },
  rest_request_timeout: { status: 408, message: 'The request was not received within the time limit.' },
  rest_bad_request: { status: 400, message: 'The request could not be read.' },
  rest_invalid_value: { status: 400, message: 'A parameter holds a value that cannot be stored (out of range, too long or invalid characters).' },
  rest_upstream_unconfigured: { status: 503, message: 'This route needs an outside service that is not configured.' },
  rest_upstream_error: { status: 502, message: 'The outside service failed to answer.' },
  rest_upstream_timeout: { status: 504, message: 'The outside service did not answer in time.' },
  rest_invalid_host: { status: 400, message: 'The host (or forwarded host or scheme) of the request is not one this service answers for.' },
  rest_service_unavailable: { status: 503, message: 'The service is temporarily unavailable.' },
  rest_internal_error: { status: 500, message: 'An internal error occurred.' },
  // Codes several route families answer, each with its own message (`reworded`).
  rest_cannot_edit: { status: 401, message: 'Sorry, you are not allowed to edit this post.' },
  rest_trash_not_supported: { status: 501, message: "The post does not support trashing. Set 'force=true' to delete." }
})

export interface ParamIssue { code: string, message: string, data: unknown }

/**
 * `400 rest_invalid_param` for one argument a handler checked itself, in
 * the shape the kernel's validation answers (`data.params`, `data.details`).
 */
export function invalidParam (name: string, message: string, details?: ParamIssue): RestError {
  return new RestError('rest_invalid_param', `Invalid parameter(s): ${name}`, 400, {
    params: { [name]: message },
    details: details === undefined ? [] : { [name]: details }
  })
}
