/**
 * Adversarial strings (test/data/adversarial-strings.txt) built to their
 * full size, and the requests that carry them to every route that takes a
 * string: for each route and string, one request with the string in every
 * free-text argument (so the handler runs), and one per argument that
 * declares a pattern or a format (validation alone must stay fast). Reads
 * carry it in the query string, writes in a JSON body. Nothing here names a
 * route.
 */
import type { JsonSchema } from '@cms/rest'
import { readPayloads, unescapePayload } from './payloads.js'
import { encodeParams, type HttpRequest } from './requests.js'
import { bodyArgs, fillPath, sampleVar, urlOf, type Target } from './routes.js'
import { validValue } from '@cms/core/testing'

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
}

/** The probes of a target: its free-text arguments together, each constrained one alone. */
export function stringProbes (target: Target): StringProbe[] {
  const strings = bodyArgs(target).filter((a) => takesString(a.schema))
  const free = strings.filter((a) => !constrained(a.schema)).map((a) => a.name)
  const probes: StringProbe[] = free.length > 0 ? [{ target, names: free }] : []
  for (const a of strings) if (constrained(a.schema)) probes.push({ target, names: [a.name] })
  return probes
}

/** The request of a probe: valid required arguments, `value` in the probe's arguments. */
export function probeRequest (probe: StringProbe, value: string, headers: Record<string, string>): HttpRequest {
  const { target } = probe
  const vars = Object.fromEntries(target.vars.map((v) => [v, sampleVar(target.decl.vars![v]!)]))
  const params: Record<string, unknown> = {}
  for (const a of bodyArgs(target)) if (a.required) params[a.name] = validValue(a.schema, a.name)
  for (const name of probe.names) params[name] = value
  const path = fillPath(target.decl.path, vars)
  if (target.method === 'GET' || target.method === 'DELETE') return { method: target.method, url: urlOf(path, encodeParams(params)), headers }
  return { method: target.method, url: urlOf(path, ''), headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(params) }
}
