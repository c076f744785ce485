/**
 * A route's permission, declared once on its endpoint: the check the kernel
 * runs before the handler, and who is expected to pass it. The permission
 * matrix (`permissionMatrix` of @cms/core) is generated from these
 * declarations and the prober (`@cms/testing`) holds every route to it, so
 * no second table keyed by `METHOD /path` exists.
 *
 *   permission: everyone
 *   permission: signedIn
 *   permission: can('manage_options')                       // row derived from the role grants
 *   permission: can(['update_plugins', 'update_themes'], { error: rollbackErrors.rest_forbidden })
 *   permission: check(mayEditPost, who.can('edit_others_posts', "§13 edit_post on another's published post", { vars: { id: 'post' } }))
 *
 * An object check (a function of the caller and the arguments) carries its
 * expected rows itself, one case per situation its probe sets up.
 */
import { denied, kernelErrors, type ErrorFactory, type RestError } from './errors.js'
import type { RestRequest } from './route.js'

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
 * `media`, `category`, `tag`, `user`, `user.app-password`,
 * `self.app-password`); any other value is sent as written. Arguments not
 * given are filled with valid values from the route's declaration.
 */
export interface Probe {
  vars?: Record<string, string>
  query?: Record<string, unknown>
  /** Query parameters whose value is a fixture object's id, named as in `vars` (`{ post_id: 'post' }`). */
  queryVars?: Record<string, string>
  body?: Record<string, unknown>
}

/** One row of the matrix: who passes, why (the rule's source), and what the probe sends. */
export interface PermissionCase {
  readonly why: string
  readonly expect: Expected
  readonly probe?: Probe
}

/** `true`, or the error to answer (`false`: the kernel's `rest_forbidden`). */
export type CheckResult = boolean | RestError | Promise<boolean | RestError>

export interface Permission<P = any> {
  /**
   * May this caller use this endpoint? Runs after validation, before the
   * handler. It must have no side effects: the kernel also calls it, with
   * the same request and memo, for every other endpoint of the route to
   * compute the `Allow` header. Load records through `req.memo`.
   */
  // Method syntax keeps permissions of different argument types assignable to one list.
  check (req: RestRequest<P>): CheckResult
  /** The matrix rows this check is expected to produce (none: decided elsewhere, a remote service's stand-in). */
  readonly cases: readonly PermissionCase[]
  /** The same check with `probe` merged into every case (values the prober must send). */
  probing (probe: Probe): Permission<P>
  /** The same check, its cases explained by `why`. */
  because (why: string): Permission<P>
}

function declared<P> (fn: (req: RestRequest<P>) => CheckResult, cases: readonly PermissionCase[]): Permission<P> {
  return {
    check: fn,
    cases,
    probing: (probe) => declared(fn, cases.map((c) => ({ ...c, probe: mergeProbe(c.probe, probe) }))),
    because: (why) => declared(fn, cases.map((c) => ({ ...c, why })))
  }
}

function mergeProbe (a: Probe | undefined, b: Probe): Probe {
  if (a === undefined) return b
  return {
    vars: { ...a.vars, ...b.vars },
    query: { ...a.query, ...b.query },
    queryVars: { ...a.queryVars, ...b.queryVars },
    body: { ...a.body, ...b.body }
  }
}

/** The expected rows of a case, for `check`. */
export const who = {
  everyone: (why: string, probe?: Probe): PermissionCase => caseOf(why, { kind: 'everyone' }, probe),
  signedIn: (why: string, probe?: Probe): PermissionCase => caseOf(why, { kind: 'signed-in' }, probe),
  nobody: (why: string, probe?: Probe): PermissionCase => caseOf(why, { kind: 'nobody' }, probe),
  /** Holders of any of these primitive capabilities (the row follows the roles' grants). */
  can: (capability: string | readonly string[], why: string, probe?: Probe): PermissionCase =>
    caseOf(why, { kind: 'can', anyOf: typeof capability === 'string' ? [capability] : capability }, probe),
  /** A row written out: `anonymous` and each role. */
  outcomes: (outcomes: Readonly<Record<string, Outcome>>, why: string, probe?: Probe): PermissionCase => caseOf(why, { kind: 'outcomes', outcomes }, probe)
}

function caseOf (why: string, expect: Expected, probe: Probe | undefined): PermissionCase {
  return probe === undefined ? { why, expect } : { why, expect, probe }
}

/** An object check or any check a capability cannot express, with its expected cases. */
export function check (fn: (req: RestRequest<any>) => CheckResult, ...cases: PermissionCase[]): Permission {
  if (cases.length === 0) throw new Error('a permission check needs at least one expected case')
  return declared(fn, cases)
}

/** Anyone may call it. */
export const everyone: Permission = declared(() => true, [who.everyone('public')])

/** Any signed-in caller; anonymous callers get `rest_forbidden` (401). */
export const signedIn: Permission = declared(
  (req) => req.user.id !== 0 || denied(kernelErrors.rest_forbidden(), 0),
  [who.signedIn('any signed-in user')]
)

export interface CanOptions {
  /** The refusal (answered 401 to an anonymous caller, 403 to a signed-in one); default the kernel's `rest_forbidden`. */
  error?: ErrorFactory | (() => RestError)
  /** Its message, when the error's own is not the one. */
  message?: string
  /** Where the rule comes from; default `<capability>`. */
  why?: string
  probe?: Probe
}

/**
 * Holders of the capability (or of any of several) may call it; its matrix
 * row follows from the roles' grants.
 */
export function can (capability: string | readonly string[], opts: CanOptions = {}): Permission {
  const anyOf = typeof capability === 'string' ? [capability] : [...capability]
  const error = opts.error ?? kernelErrors.rest_forbidden
  return declared(
    (req) => anyOf.some((c) => req.user.can(c)) || denied((error as ErrorFactory)(undefined, opts.message), req.user.id),
    [who.can(anyOf, opts.why ?? anyOf.join(' or '), opts.probe)]
  )
}

/** A stand-in's permission: the service serving the route decides (no row here). */
export const decidedElsewhere: Permission = {
  check: () => true,
  cases: [],
  probing: () => decidedElsewhere,
  because: () => decidedElsewhere
}
