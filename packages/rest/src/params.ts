/**
 * Where parameters come from and which source wins. Query strings are read
 * the PHP way (`a[]=1&a[]=2`, `categories[terms][]=3`); a repeated plain
 * name keeps its last value. Path variables win over everything else.
 */
import qs from 'qs'

const QS_OPTIONS: qs.IParseOptions = {
  depth: 8,
  arrayLimit: 1000,
  parameterLimit: 2000,
  duplicates: 'last',
  allowPrototypes: false,
  strictDepth: false
}

export function parseQuery (search: string): Record<string, unknown> {
  if (search === '') return {}
  // Most query strings are flat (`per_page=10&page=2`): read those without qs,
  // with the same result (test/params.test.ts compares the two).
  if (!NESTED.test(search)) {
    const flat = parseFlat(search)
    if (flat !== undefined) return flat
  }
  return qs.parse(search, QS_OPTIONS) as Record<string, unknown>
}

/** A bracket, raw or percent-encoded, anywhere: a PHP-style array or object. */
const NESTED = /\[|%5b|%5d|\]/i

function parseFlat (search: string): Record<string, unknown> | undefined {
  const parts = search.split('&')
  if (parts.length > (QS_OPTIONS.parameterLimit ?? 1000)) return undefined
  const out: Record<string, unknown> = {}
  for (const part of parts) {
    if (part === '') continue
    const eq = part.indexOf('=')
    const key = decodeComponent(eq === -1 ? part : part.slice(0, eq))
    // qs drops empty names and names of Object.prototype members.
    if (key === '' || key in Object.prototype) continue
    out[key] = eq === -1 ? '' : decodeComponent(part.slice(eq + 1))
  }
  return out
}

/** As qs decodes: `+` is a space, a malformed escape is kept as written. */
function decodeComponent (s: string): string {
  const spaced = s.includes('+') ? s.replace(/\+/g, ' ') : s
  if (!spaced.includes('%')) return spaced
  try { return decodeURIComponent(spaced) } catch { return spaced }
}

export function isPlainObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Query < body < path variables. Defaults are applied by validation. */
export function mergeParams (
  query: Record<string, unknown>,
  body: unknown,
  pathVars: Record<string, string>
): Record<string, unknown> {
  const merged: Record<string, unknown> = Object.assign(Object.create(null), query)
  if (isPlainObject(body)) Object.assign(merged, body)
  return Object.assign(merged, pathVars)
}

/** Global parameters that steer the response rather than the handler. */
export const GLOBAL_PARAMS = ['_fields', '_embed', '_envelope', '_pretty', '_jsonp', '_method', 'rest_route'] as const
