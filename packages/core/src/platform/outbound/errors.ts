/**
 * Why an outbound fetch did not produce a response. Callers map these to
 * their own REST errors; `restErrorOf` gives the defaults of the conventions
 * (a refused address is the caller's mistake, the rest is the upstream's).
 */
import { declareErrors, kernelErrors, type RestError } from '@cms/rest'

export type OutboundFailure =
  /** The URL or an address it resolves to is not allowed (scheme, credentials, private address). */
  | 'blocked'
  /** The host name does not resolve. */
  | 'dns'
  | 'timeout'
  | 'too_large'
  | 'redirects'
  /** Connection refused or reset, TLS failure, malformed response. */
  | 'network'

export class OutboundError extends Error {
  constructor (
    readonly failure: OutboundFailure,
    message: string,
    /** The URL being fetched when it failed. */
    readonly url: string,
    /** 0 for the URL asked for, n for the n-th redirect. */
    readonly hop: number
  ) {
    super(message)
    this.name = 'OutboundError'
  }
}

export const outboundErrors = declareErrors({
  rest_url_not_allowed: {
    status: 400,
    message: 'The URL cannot be fetched: only http(s) URLs of public addresses are allowed.'
  }
})

export function restErrorOf (error: OutboundError): RestError {
  if (error.failure === 'blocked' && error.hop === 0) return outboundErrors.rest_url_not_allowed()
  return kernelErrors.rest_upstream_error(undefined, `The outside service failed to answer: ${error.message}`)
}
