/**
 * Kept answers: the rendered bytes of answers whose handler tagged them
 * cacheable (`cachedResponse`), per address. A handler that returns the same
 * tag again gets the same bytes; an anonymous body-less GET answered under
 * the same freshness token gets them before validation, the permission check
 * and the handler run (nothing it depends on can have changed since).
 */
import type { Rendered } from './render.js'
import { WeighedMap } from './weighed-map.js'

/** A kept answer: its handler's tag, and `token` for anonymous ones (the fast path). */
interface KeptAnswer { tag: object, response: Rendered, token?: string }

/** What the kept answers key on: an address has one route. */
interface Addressed { method: string, url: string, baseUrl: string, body?: unknown, principal: { id: number } }

export class KeptAnswers {
  // Their weight is their bytes: one page of a hundred long posts can weigh megabytes.
  private readonly kept: WeighedMap<KeptAnswer>

  constructor (bytes: number, private readonly freshness?: () => Promise<string | undefined>) {
    this.kept = new WeighedMap<KeptAnswer>(bytes)
  }

  static keyOf (request: Pick<Addressed, 'method' | 'url' | 'baseUrl'>): string {
    return `${request.method} ${request.url} ${request.baseUrl}`
  }

  /**
   * The fast path of an anonymous body-less GET: the kept bytes when still
   * fresh, else the token taken now (a lower bound for what the handler
   * reads). The token is asked only for addresses with kept bytes (other
   * routes do not wait for it).
   */
  async fresh (request: Addressed, method: string): Promise<{ hit?: Rendered, token?: string }> {
    const key = KeptAnswers.keyOf(request)
    if (this.freshness === undefined || method !== 'GET' || request.principal.id !== 0 ||
      (request.body !== undefined && request.body !== null) || !this.kept.has(key)) return {}
    const token = await this.freshness()
    const hit = this.kept.get(key)
    if (token !== undefined && hit?.token === token) return { hit: hit.response, token }
    return { token }
  }

  /** The bytes last sent for this address when the handler's tag is the same. */
  reuse (key: string, tag: object, token: string | undefined): Rendered | undefined {
    const hit = this.kept.get(key)
    if (hit === undefined || hit.tag !== tag) return undefined
    // The token was taken before the handler read anything: a safe lower bound.
    if (token !== undefined) hit.token = token
    return hit.response
  }

  /** Keeps a rendered answer, encoded once: every later answer writes the same bytes. */
  keep (key: string, cache: { tag: object, token?: string }, response: Rendered): void {
    // The text stays for in-process dispatch.
    if (typeof response.payload === 'string') response.bytes = Buffer.from(response.payload)
    const size = (response.bytes?.length ?? 0) + (response.payload?.length ?? 0)
    this.kept.set(key, { ...cache, response }, size)
  }
}
