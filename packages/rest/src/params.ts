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
  return search === '' ? {} : qs.parse(search, QS_OPTIONS) as Record<string, unknown>
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
