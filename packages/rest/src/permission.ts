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
// The declaration types live beside the route types they name (one module, no import cycle).
import type { CheckResult, Permission, RestRequest } from './route.js'
import type { Expected, Outcome, PermissionCase, Probe } from './permission-cases.js'

export type { CheckResult, Expected, Outcome, Permission, PermissionCase, Probe }

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
    body: { ...a.body, ...b.body },
    bodyVars: { ...a.bodyVars, ...b.bodyVars }
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
