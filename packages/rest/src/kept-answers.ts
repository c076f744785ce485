/**
 * Kept answers: the rendered bytes of what callers were answered by
 * endpoints declared `cache: 'public'`, per address, with the commit horizon
 * taken before the answer was made. A body-less GET of that address answered
 * under the same horizon gets those bytes before validation, the permission
 * check and the handler run (nothing it depends on can have changed since).
 *
 * Anonymous answers are keyed by the address alone. A signed-in caller's are
 * kept apart, in a budget of their own (many callers must not push out the
 * anonymous answers), keyed by the address and the caller's rights token
 * (`Principal.keptAs`: the user, the credentials epoch and the grants the
 * caller was verified under), so an answer only ever reaches a caller who
 * would have been given the same bytes afresh.
 */
import { LRUCache } from 'lru-cache'
import type { Rendered } from './render.js'
import type { HeaderValue } from './response.js'
import { weighedCache } from './weighed-cache.js'

/** A kept answer; `horizon` once a request that asked it made the answer again. */
interface KeptAnswer { response: Rendered, horizon?: string }

/** What the kept answers key on: an address has one route. */
interface Addressed { method: string, url: string, baseUrl: string }

export class KeptAnswers {
  // Weighed by their bytes: one page of a hundred long posts can weigh megabytes.
  private readonly kept: LRUCache<string, KeptAnswer> | undefined
  /**
   * Addresses answered once and not kept: an answer is kept the second time
   * its address is made (an address that never repeats, a parameter that
   * changes every time, copies and holds no bytes: holding them made the
   * garbage collector's old generation churn). One per 4 KiB of the budget.
   */
  private readonly seen: LRUCache<string, true> | undefined

  /** `bytes`: the budget; 0 keeps nothing. */
  constructor (bytes: number) {
    this.kept = bytes > 0 ? weighedCache<KeptAnswer>(bytes, (answer) => (answer.response.bytes?.length ?? 0) + (answer.response.payload?.length ?? 0)) : undefined
    this.seen = bytes > 0 ? new LRUCache<string, true>({ max: Math.max(16, Math.floor(bytes / 4096)) }) : undefined
  }

  /** The key of an anonymous answer, or (with `caller`, a rights token) of a signed-in caller's. */
  static keyOf (request: Addressed, caller?: string): string {
    const address = `${request.method} ${request.url} ${request.baseUrl}`
    return caller === undefined ? address : `${caller}\u0000${address}`
  }

  /**
   * Before the pipeline: the kept bytes when still fresh, else the horizon
   * taken now (a lower bound for what the pipeline reads). The horizon is
   * asked only for addresses with kept bytes (other requests do not wait
   * for it here).
   */
  async fresh (key: string, horizonOf: () => Promise<string | undefined>): Promise<{ hit?: Rendered, horizon?: string }> {
    if (this.kept?.has(key) !== true && this.seen?.has(key) !== true) return {}
    const horizon = await horizonOf()
    return { hit: this.at(key, horizon), horizon }
  }

  /** The kept bytes made under `horizon` (taken already: a signed-in caller's, with the credentials). */
  at (key: string, horizon: string | undefined): Rendered | undefined {
    const hit = this.kept?.peek(key)
    return horizon !== undefined && hit?.horizon === horizon ? hit.response : undefined
  }

  /**
   * Keeps a rendered answer, encoded once: every later answer writes the
   * same bytes. The first answer of an address is only noted (`seen`).
   */
  keep (key: string, response: Rendered, horizon: string | undefined): void {
    if (this.kept === undefined || this.seen === undefined || !keepable(response.headers)) return
    if (!this.kept.has(key) && !this.seen.delete(key)) {
      this.seen.set(key, true)
      return
    }
    // The text stays for in-process dispatch (a large answer comes as bytes only: render.ts).
    if (response.bytes === undefined && typeof response.payload === 'string') response.bytes = Buffer.from(response.payload)
    this.kept.set(key, { response, horizon })
  }
}

/**
 * Whether an answer's headers let it be given again: not one that sets a
 * cookie or carries a nonce (made for one request), nor one its route
 * marked `no-store`.
 */
function keepable (headers: Record<string, HeaderValue>): boolean {
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase()
    if (lower === 'set-cookie' || lower.includes('nonce')) return false
    if (lower === 'cache-control' && /no-store/i.test(String(value))) return false
  }
  return true
}
