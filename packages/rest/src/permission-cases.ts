/**
 * The permission matrix's vocabulary: who is expected to pass an endpoint's
 * check and what the prober sends to find out (permission.ts builds them).
 */

/** What a caller gets: the check passed (any status but 401/403), or the refusal's status. */
export type Outcome = 'allowed' | 401 | 403

/** Who is expected to pass, as the matrix row is derived from it. */
export type Expected =
  /** Anyone, signed in or not. */
  | { readonly kind: 'everyone' }
  /** Any signed-in caller; anonymous 401. */
  | { readonly kind: 'signed-in' }
  /** No one: anonymous 401, every role 403. */
  | { readonly kind: 'nobody' }
  /** Holders of any of these primitive capabilities (from the roles' grants); anonymous 401, others 403. */
  | { readonly kind: 'can', readonly anyOf: readonly string[] }
  /** Written out per caller kind (`anonymous` and each role). */
  | { readonly kind: 'outcomes', readonly outcomes: Readonly<Record<string, Outcome>> }

/**
 * What the prober sends for a case. Path variables and query values name
 * fixture objects the prober makes first (`post`, `page`, `post.revision`,
 * `media`, `category`, `tag`, `comment`, `webhook`, `webhook.delivery`, `user`, `user.app-password`,
 * `self.app-password`); any other value is sent as written. Arguments not
 * given are filled with valid values from the route's declaration.
 */
export interface Probe {
  vars?: Record<string, string>
  query?: Record<string, unknown>
  /** Query parameters whose value is a fixture object's id, named as in `vars` (`{ post_id: 'post' }`). */
  queryVars?: Record<string, string>
  body?: Record<string, unknown>
  /** Body members whose value is a fixture object's id (`{ post: 'post' }`: a comment's post). */
  bodyVars?: Record<string, string>
}

/** One row of the matrix: who passes, why (the rule's source), and what the probe sends. */
export interface PermissionCase {
  readonly why: string
  readonly expect: Expected
  readonly probe?: Probe
}
