/**
 * Adversarial strings (test/data/adversarial-strings.txt) built to their
 * full size, and the requests that carry them to every route that takes a
 * string: for each route and string, one request with the string in every
 * free-text argument (so the handler runs), and one per argument that
 * declares a pattern or a format (validation alone must stay fast). Reads
 * carry it in the query string, writes in a JSON body. Nothing here names a
 * route.
 */
import type { Probe } from '@cms/core'
import type { JsonSchema } from '@cms/rest'
import { readPayloads, unescapePayload } from './payloads.js'
import { encodeParams, type HttpRequest } from './requests.js'
import { bodyArgs, fillPath, sampleVar, urlOf, type Target } from './routes.js'
import { validValue } from './values.js'

export interface AdversarialString {
  /** The unit and tail as written in the data file. */
  label: string
  value: string
}

/** Each line of the data file repeated to `size` characters (then its tail). */
export function adversarialStrings (size: number): AdversarialString[] {
  return readPayloads('adversarial-strings.txt').map((line) => {
    const [unit = '', tail = ''] = line.split('\t').map(unescapePayload)
    const count = Math.max(1, Math.ceil((size - tail.length) / unit.length))
    return { label: JSON.stringify(unit) + (tail === '' ? '' : ` + ${JSON.stringify(tail)}`), value: unit.repeat(count) + tail }
  })
}

function takesString (schema: JsonSchema): boolean {
  if (Array.isArray(schema.enum)) return false
  const type = schema.type
  return type === 'string' || type === undefined || (Array.isArray(type) && type.includes('string'))
}

/** A free-text argument takes any string; one with a pattern or a format is only validated. */
function constrained (schema: JsonSchema): boolean {
  return typeof schema.pattern === 'string' || typeof schema.format === 'string'
}

export interface StringProbe {
  target: Target
  /** The arguments that carry the string. */
  names: string[]
  /** Path variables and parameters the route's permission case gives its probe (sent as they are). */
  given?: { vars: Record<string, string>, params: Record<string, unknown> }
}

/** Permission-case variables that name objects the permission prober makes: not usable here. */
const FIXTURES = new Set(['post', 'page', 'post.revision', 'page.revision', 'post.autosave', 'page.autosave', 'category', 'tag', 'user', 'media', 'user.app-password', 'self.app-password'])

/**
 * The probes of a target: its free-text arguments together, each constrained one alone.
 * A route may read parameters it does not declare (the reference lists none for it, as for
 * the add-ons' lookups and widget builder): the string members of its permission case's
 * probe (`hint`) stand for them, and carry the string too; the probe's other values are sent
 * as they are, so the request reaches the handler.
 */
export function stringProbes (target: Target, hint?: Probe): StringProbe[] {
  const strings = bodyArgs(target).filter((a) => takesString(a.schema))
  const declared = new Set(target.args.map((a) => a.name))
  const params: Record<string, unknown> = { ...hint?.query, ...hint?.body }
  const undeclared = Object.entries(params).filter(([n, v]) => typeof v === 'string' && !declared.has(n)).map(([n]) => n)
  const free = [...strings.filter((a) => !constrained(a.schema)).map((a) => a.name), ...undeclared]
  const vars = Object.fromEntries(Object.entries(hint?.vars ?? {}).filter(([, v]) => !FIXTURES.has(v)))
  const given = hint === undefined ? {} : { given: { vars, params } }
  const probes: StringProbe[] = free.length > 0 ? [{ target, names: free, ...given }] : []
  for (const a of strings) if (constrained(a.schema)) probes.push({ target, names: [a.name], ...given })
  return probes
}

/** The request of a probe: valid required arguments, `value` in the probe's arguments. */
export function probeRequest (probe: StringProbe, value: string, headers: Record<string, string>): HttpRequest {
  const { target } = probe
  const vars = Object.fromEntries(target.vars.map((v) => [v, probe.given?.vars[v] ?? sampleVar(target.decl.vars![v]!)]))
  const params: Record<string, unknown> = { ...probe.given?.params }
  for (const a of bodyArgs(target)) if (a.required && !(a.name in params)) params[a.name] = validValue(a.schema, a.name)
  for (const name of probe.names) params[name] = value
  const path = fillPath(target.decl.path, vars)
  if (target.method === 'GET' || target.method === 'DELETE') return { method: target.method, url: urlOf(path, encodeParams(params)), headers }
  return { method: target.method, url: urlOf(path, ''), headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(params) }
}
