/**
 * What the prober and the gateway's test harness send: every route and
 * method of a running app read from its declarations (`app.restRoutes`),
 * requests as plain data (printable, replayable), the PHP-style encoding of
 * query strings and form bodies, and a valid value for any argument from
 * its JSON schema. Nothing here names a route, so a new namespace is
 * covered as soon as it is registered.
 */
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { argsOf, variablesOf, type ArgInfo, type EndpointDecl, type JsonSchema, type RouteDecl } from '@cms/rest'

/** The base URL test apps answer for (links, URLs a probe sends). */
const BASE = 'http://cms.test'

export interface Target {
  decl: RouteDecl
  endpoint: EndpointDecl<any>
  method: string
  /** `GET /cms/v2/posts/{id}`: the key of the permission table. */
  key: string
  /** Declared arguments, path variables included when declared as arguments. */
  args: ArgInfo[]
  /** Path variable names, in path order. */
  vars: string[]
}

export function targetsOf (app: FastifyInstance): Target[] {
  const out: Target[] = []
  for (const decl of app.restRoutes) {
    const vars = variablesOf(decl.path)
    for (const endpoint of decl.endpoints) {
      for (const method of endpoint.methods) {
        out.push({ decl, endpoint, method, key: `${method} ${decl.path}`, args: argsOf(endpoint), vars })
      }
    }
  }
  return out
}

/** The arguments that are not path variables (those travel in the URL). */
export function bodyArgs (target: Target): ArgInfo[] {
  return target.args.filter((a) => !target.vars.includes(a.name))
}

/** `/cms/v2/posts/{id}` with raw (already URL-safe) segments for its variables. */
export function fillPath (path: string, vars: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => vars[name] ?? '')
}

export type Addressing = 'pretty' | 'rest_route'

/**
 * The URL of a route path plus a query string (without `?`), in the pretty
 * form (`/cms-json/...`) or the canonical one (`/index.php?rest_route=...`).
 */
export function urlOf (path: string, query: string, addressing: Addressing = 'pretty'): string {
  if (addressing === 'pretty') return `/cms-json${path === '/' ? '/' : path}${query === '' ? '' : `?${query}`}`
  return `/index.php?rest_route=${path}${query === '' ? '' : `&${query}`}`
}

/** A value that matches a path variable's character class (for probes). */
export function sampleVar (charClass: string): string {
  const re = new RegExp(`^(?:${charClass})$`)
  for (const candidate of ['1', 'me', 'probe', 'probe-1', 'abc', 'a1b2c3d4-0000-4000-8000-000000000000']) {
    if (re.test(candidate)) return candidate
  }
  return '1'
}

export interface HttpRequest {
  method: string
  url: string
  headers: Record<string, string>
  payload?: string
}

export interface HttpResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** `a[b][0]=1&c=x`: how PHP (and the kernel) read nested values from a query string or form body. */
export function encodeParams (params: Record<string, unknown>): string {
  const parts: string[] = []
  const add = (key: string, value: unknown): void => {
    if (value === undefined) return
    if (value === null) { parts.push(`${encodeKey(key)}=`); return }
    if (Array.isArray(value)) {
      if (value.length === 0) parts.push(`${encodeKey(key)}=`)
      value.forEach((v, i) => { add(`${key}[${typeof v === 'object' && v !== null ? i : ''}]`, v) })
      return
    }
    if (typeof value === 'object') {
      const entries = Object.entries(value as Record<string, unknown>)
      if (entries.length === 0) parts.push(`${encodeKey(key)}=`)
      for (const [k, v] of entries) add(`${key}[${k}]`, v)
      return
    }
    parts.push(`${encodeKey(key)}=${encodeURIComponent(String(value))}`)
  }
  for (const [k, v] of Object.entries(params)) add(k, v)
  return parts.join('&')
}

function encodeKey (key: string): string {
  return encodeURIComponent(key).replace(/%5B/g, '[').replace(/%5D/g, ']')
}

export async function inject (app: FastifyInstance, req: HttpRequest): Promise<HttpResponse> {
  const res = await app.inject({
    method: req.method as 'GET',
    url: req.url,
    headers: req.headers,
    ...(req.payload === undefined ? {} : { payload: req.payload })
  })
  return { status: res.statusCode, headers: res.headers as HttpResponse['headers'], body: res.body }
}

/** The JSON types a schema allows (an `enum` without `type`: strings). */
export function typesOf (schema: JsonSchema): string[] {
  const t = schema.type
  if (Array.isArray(t)) return t.map(String)
  if (typeof t === 'string') return [t]
  if (Array.isArray(schema.enum)) return ['string']
  return []
}

/** A value that satisfies the schema (as far as a probe needs), or undefined when anything goes. */
export function validValue (schema: JsonSchema, name = ''): unknown {
  if ('default' in schema && schema.default !== null) return schema.default
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  const alt = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined
  if (Array.isArray(alt) && alt.length > 0) return validValue(alt[0]!, name)
  const types = typesOf(schema)
  const type = types.find((t) => t !== 'null') ?? types[0]
  switch (type) {
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : 1
      return typeof schema.maximum === 'number' && schema.maximum < min ? schema.maximum : min
    }
    case 'boolean':
      return true
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0
      return Array.from({ length: min }, () => validValue(schema.items ?? {}, name))
    }
    case 'object': {
      const out: Record<string, unknown> = {}
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>
      const required = new Set<string>(Array.isArray(schema.required) ? schema.required : [])
      for (const [key, sub] of Object.entries(props)) {
        if (required.has(key) || sub.required === true) out[key] = validValue(sub, key)
      }
      return out
    }
    case 'string':
      return validString(schema, name)
    default:
      return /url|uri|link/i.test(name) ? `${BASE}/?p=1` : 'probe'
  }
}

function validString (schema: JsonSchema, name: string): string {
  switch (schema.format) {
    case 'date-time': return '2024-01-02T03:04:05'
    case 'uri': return `${BASE}/?p=1`
    case 'email': return `probe-${Math.random().toString(36).slice(2, 8)}@example.com`
    case 'uuid': return randomUUID()
    case 'ip': return '127.0.0.1'
    case 'hex-color': return '#aabbcc'
  }
  if (/url|uri|link/i.test(name)) return `${BASE}/?p=1`
  if (/mail/i.test(name)) return `probe-${Math.random().toString(36).slice(2, 8)}@example.com`
  let value = /name|login/i.test(name) ? `probe-${Math.random().toString(36).slice(2, 8)}` : 'probe'
  if (typeof schema.minLength === 'number' && value.length < schema.minLength) value = value.padEnd(schema.minLength, 'x')
  if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) value = value.slice(0, schema.maxLength)
  if (typeof schema.pattern === 'string') {
    const re = new RegExp(schema.pattern)
    if (!re.test(value)) value = ['probe', 'a', '1', 'a1', 'abc-1'].find((v) => re.test(v)) ?? value
  }
  return value
}
