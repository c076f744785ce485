/**
 * Which `Host` a request may name. The base URL of links comes from the
 * configured base URL, else from the request's host; either way a host that
 * is not a plain name or address is refused, so it never reaches a link, a
 * `Location` or a header unescaped. With a configured base URL (or a list of
 * allowed hosts) only those hosts and loopback names are accepted.
 */
import { kernelErrors } from './errors.js'

/** A host name or address with an optional port, as the `Host` header carries it. */
const HOST_SYNTAX = /^(?:[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i

/** A DNS name is at most 253 characters; a port and brackets add a few. */
const MAX_HOST_LENGTH = 270

export function isHostValue (host: string): boolean {
  return host.length > 0 && host.length <= MAX_HOST_LENGTH && HOST_SYNTAX.test(host)
}

/** Loopback names, with any port: health checks and local tools call the service by them. */
const LOOPBACK = /^(?:localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])(?::\d{1,5})?$/i

export interface HostPolicy {
  /** The configured public base URL, if any: its host is accepted. */
  baseUrl?: string
  /** Further accepted hosts (`name` or `name:port`, lowercase). */
  allowedHosts?: string[]
}

/**
 * A checker of the (possibly forwarded) host and scheme of a request: throws
 * `400 rest_invalid_host` for a host or scheme the service does not accept.
 */
export function hostChecker (policy: HostPolicy): (host: string, protocol: string) => void {
  const accepted = new Set<string>((policy.allowedHosts ?? []).map((h) => h.toLowerCase()))
  if (policy.baseUrl !== undefined) {
    const url = new URL(policy.baseUrl)
    accepted.add(url.host.toLowerCase())
    // `Host: example.com:443` names the same origin as `https://example.com`.
    if (url.port === '') accepted.add(`${url.hostname.toLowerCase()}:${url.protocol === 'https:' ? 443 : 80}`)
  }
  const restricted = accepted.size > 0
  return (host, protocol) => {
    if (protocol !== 'http' && protocol !== 'https') throw kernelErrors.rest_invalid_host()
    if (!isHostValue(host)) throw kernelErrors.rest_invalid_host()
    if (restricted && !accepted.has(host.toLowerCase()) && !LOOPBACK.test(host)) throw kernelErrors.rest_invalid_host()
  }
}
