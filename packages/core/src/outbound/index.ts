/**
 * The SSRF-guarded client for every outbound fetch of a URL that comes from
 * a request (oEmbed proxy, remote file checks...).
 */
export { createOutboundClient, outboundClientFromEnv, type OutboundClient, type OutboundOptions, type OutboundResponse, type FetchOptions, type Resolver } from './client.js'
export { OutboundError, outboundErrors, restErrorOf, type OutboundFailure } from './errors.js'
export { parseAllowList, type AllowList } from './allow.js'
export { classifyAddress, parseIp, type AddressClass } from './address.js'
