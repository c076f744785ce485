/**
 * An endpoint's rate-limit class: what the core's rate limits count a
 * request against (docs/guides/rate-limits.md).
 */

/** What a request counts against (see `EndpointDecl.rateClass`). */
export type RateClass = 'read' | 'write' | 'expensive'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The endpoint's rate-limit class (the kernel's routes set it; see `EndpointDecl.rateClass`). */
    rateClass?: RateClass
  }
}

/** An endpoint's class for a method: its declared one, else `expensive` for an upload (a streamed body), else by the method. */
export function rateClassOf (ep: { rateClass?: RateClass, streamBody?: unknown }, method: string): RateClass {
  if (ep.rateClass !== undefined) return ep.rateClass
  if (ep.streamBody !== undefined) return 'expensive'
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? 'read' : 'write'
}
