/**
 * The permission matrix, generated from the routes' own declarations
 * (`permission:` of each endpoint, @cms/rest permission.ts): for every
 * route, method and declared case, the expected outcome for an anonymous
 * caller and for a user of each role. A capability's row follows the roles'
 * grants in this deployment (the core's sets plus what packages granted), so
 * `can('manage_seo_options')` reads "administrators" without anyone writing
 * it twice. The prober (`probePermissions` of @cms/core/testing) holds the
 * running app to it.
 */
import type { Outcome, PermissionCase, Probe, RouteDecl } from '@cms/rest'
import { ROLES, type Role, type RoleRegistry } from './users/capabilities.js'

export type CallerKind = 'anonymous' | Role

/** Every caller kind, least privileged first. */
export const CALLER_KINDS: readonly CallerKind[] = ['anonymous', ...[...ROLES].reverse()]

export type MatrixRow = Readonly<Record<CallerKind, Outcome>> & {
  /** Where the rule comes from. */
  readonly why: string
  readonly probe?: Probe
}

/** The row of one declared case in a deployment whose roles hold `roles`' grants. */
export function rowOf (c: PermissionCase, roles: RoleRegistry): MatrixRow {
  const out: Record<string, unknown> = { why: c.why }
  for (const kind of CALLER_KINDS) out[kind] = outcomeOf(c, kind, roles)
  if (c.probe !== undefined) out.probe = c.probe
  return out as MatrixRow
}

function outcomeOf (c: PermissionCase, kind: CallerKind, roles: RoleRegistry): Outcome {
  const e = c.expect
  switch (e.kind) {
    case 'everyone': return 'allowed'
    case 'outcomes': {
      const given = e.outcomes[kind]
      if (given === undefined) throw new Error(`permission case "${c.why}" gives no outcome for ${kind}`)
      return given
    }
    default:
      if (kind === 'anonymous') return 401
      if (e.kind === 'signed-in') return 'allowed'
      if (e.kind === 'nobody') return 403
      return e.anyOf.some((cap) => roles.capabilitiesOf(kind).has(cap)) ? 'allowed' : 403
  }
}

export interface MatrixEntry {
  /** `GET /cms/v2/posts/{id}`. */
  key: string
  method: string
  route: RouteDecl
  rows: MatrixRow[]
}

/** Every route and method with its rows, in registration order. A route whose permission declares no case has none. */
export function permissionMatrix (routes: readonly RouteDecl[], roles: RoleRegistry): MatrixEntry[] {
  const out: MatrixEntry[] = []
  for (const route of routes) {
    for (const ep of route.endpoints) {
      for (const method of ep.methods) {
        out.push({ key: `${method} ${route.path}`, method, route, rows: ep.permission.cases.map((c) => rowOf(c, roles)) })
      }
    }
  }
  return out
}
