/**
 * Kept answers: the rendered bytes of what anonymous callers were answered
 * by endpoints declared `cache: 'public'`, per address, with the commit
 * horizon taken before the answer was made. An anonymous body-less GET of
 * that address answered under the same horizon gets those bytes before
 * validation, the permission check and the handler run (nothing it depends
 * on can have changed since).
 */
import type { LRUCache } from 'lru-cache'
import type { Rendered } from './render.js'
import { weighedCache } from './weighed-cache.js'

/** A kept answer; `horizon` once a request that asked it made the answer again. */
interface KeptAnswer { response: Rendered, horizon?: string }

/** What the kept answers key on: an address has one route. */
interface Addressed { method: string, url: string, baseUrl: string }

export class KeptAnswers {
  // Weighed by their bytes: one page of a hundred long posts can weigh megabytes.
  private readonly kept: LRUCache<string, KeptAnswer>

  constructor (bytes: number) {
    this.kept = weighedCache<KeptAnswer>(bytes, (answer) => (answer.response.bytes?.length ?? 0) + (answer.response.payload?.length ?? 0))
  }

  static keyOf (request: Addressed): string {
    return `${request.method} ${request.url} ${request.baseUrl}`
  }

  /**
   * Before the pipeline: the kept bytes when still fresh, else the horizon
   * taken now (a lower bound for what the pipeline reads). The horizon is
   * asked only for addresses with kept bytes (other requests do not wait
   * for it here).
   */
  async fresh (key: string, horizonOf: () => Promise<string | undefined>): Promise<{ hit?: Rendered, horizon?: string }> {
    if (!this.kept.has(key)) return {}
    const horizon = await horizonOf()
    const hit = this.kept.peek(key)
    if (horizon !== undefined && hit?.horizon === horizon) return { hit: hit.response, horizon }
    return { horizon }
  }

  /** Keeps a rendered answer, encoded once: every later answer writes the same bytes. */
  keep (key: string, response: Rendered, horizon: string | undefined): void {
    // The text stays for in-process dispatch (a large answer comes as bytes only: render.ts).
    if (typeof response.payload === 'string') response.bytes = Buffer.from(response.payload)
    this.kept.set(key, { response, horizon })
  }
}
