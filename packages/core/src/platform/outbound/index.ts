/**
 * The SSRF-guarded client for every outbound fetch of a URL that comes from
 * a request (oEmbed proxy, remote file checks...).
 */
export { createOutboundClient, outboundClientFromEnv, type OutboundClient, type OutboundResponse, type FetchOptions } from './client.js'
export { OutboundError, restErrorOf } from './errors.js'
export { parseAllowList } from './allow.js'
export { classifyAddress, parseIp } from './address.js'
