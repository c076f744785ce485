/**
 * What a client generator needs in the OpenAPI document beyond what
 * @fastify/swagger derives from the Fastify routes: each operation's success
 * status and response schema (the route's item schema, an array for a list,
 * the pagination headers), the error shape for the 4xx statuses, an
 * operation id, and argument schemas made valid for their type (a list's
 * default is a list; `title`, `content`, `excerpt` take a string or an object,
 * as the handlers do). All of it is read from the route declarations.
 */
import type { JsonSchema } from './schema.js'
import type { EndpointDecl, EndpointExample, Method, RouteDecl } from './route.js'
import type { PermissionCase } from './permission-cases.js'
import { rateClassOf } from './rate-class.js'
import { argsOf } from './arg-marks.js'

type Doc = Record<string, any>

/** The shape of every error answer (`RestError`). */
const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['code', 'message', 'data'],
  properties: {
    code: { type: 'string', description: 'A stable, machine-readable error code.' },
    message: { type: 'string', description: 'What went wrong, for a person.' },
    data: {
      type: 'object',
      required: ['status'],
      properties: { status: { type: 'integer', description: 'The HTTP status of the answer.' } },
      additionalProperties: true
    }
  }
}

const ERRORS: Record<string, string> = {
  400: 'An argument is missing or invalid.',
  401: 'Authentication is required, or the credentials are wrong.',
  403: 'The caller may not do this.',
  404: 'No such route or item.',
  409: 'The request conflicts with the current state.',
  412: 'A precondition (If-Match, If-Unmodified-Since) failed.',
  413: 'The request body is too large.',
  429: 'Too many requests from this caller (rate limits): `Retry-After` and `data.retry_after` say when to come back.'
}
const READ_ERRORS = ['400', '401', '403', '404', '429']
const WRITE_ERRORS = Object.keys(ERRORS)

const PAGINATION_HEADERS = {
  'X-CMS-Total': { description: 'How many items match, over all pages.', schema: { type: 'integer' } },
  'X-CMS-TotalPages': { description: 'How many pages there are at this page size.', schema: { type: 'integer' } },
  Link: { description: 'The previous and next pages (`rel="prev"`, `rel="next"`).', schema: { type: 'string' } }
}

/**
 * The document with responses, errors, operation ids and sound argument
 * schemas, from the declarations mounted under `prefix`. The input is not
 * changed.
 */
export function completeDocument (swagger: Doc, routes: readonly RouteDecl[], prefix: string): Doc {
  const doc = structuredClone(swagger)
  const schemas: Record<string, JsonSchema> = {}
  const refOf = itemSchemaNamer(schemas)
  const ids = new Set<string>()
  const responses: Record<string, unknown> = {}
  for (const status of WRITE_ERRORS) {
    responses[`Error${status}`] = { description: ERRORS[status], content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }
  }

  for (const decl of routes) {
    const path = doc.paths?.[prefix + (decl.path === '/' ? '/' : decl.path)]
    if (path === undefined) continue
    const listing = lists(decl, routes)
    for (const ep of decl.endpoints) {
      for (const method of ep.methods) {
        const op = path[method.toLowerCase()]
        if (op === undefined) continue
        op.operationId = uniqueId(ids, operationIdOf(method, decl.path))
        fixArguments(op, ep)
        op.description = descriptionOf(ep, method, listing)
        const status = successStatusOf(decl, ep, method, listing)
        op.responses = {
          [status]: successOf(decl, ep, method, listing, status, refOf),
          ...Object.fromEntries((method === 'GET' ? READ_ERRORS : WRITE_ERRORS).map((s) => [s, { $ref: `#/components/responses/Error${s}` }])),
          ...Object.fromEntries(Object.entries(ep.errorResponses ?? {}).map(([s, r]) => [s, {
            description: r.description,
            // Still an error answer: the error shape, and what this route adds to it.
            content: { 'application/json': { schema: { allOf: [{ $ref: '#/components/schemas/Error' }, cleanSchema(r.schema as JsonSchema, false)] } } }
          }]))
        }
        if (ep.example !== undefined) addExample(op, ep.example, status)
      }
    }
    // Fastify's HEAD twin of a GET: the same answer without a body.
    if (path.head !== undefined && path.get !== undefined) {
      path.head.operationId = uniqueId(ids, operationIdOf('HEAD', decl.path))
      path.head.description = `${String(path.get.description)} HEAD: the same answer's status and headers, without its body.`
      path.head.responses = Object.fromEntries(Object.entries(path.get.responses as Record<string, any>)
        .map(([s, r]) => [s, r.$ref === undefined ? { description: r.description, ...(r.headers !== undefined ? { headers: r.headers } : {}) } : r]))
    }
  }
  doc.components = {
    ...doc.components,
    schemas: { ...doc.components?.schemas, Error: ERROR_SCHEMA, ...schemas },
    responses: { ...doc.components?.responses, ...responses }
  }
  return doc
}

/** Who a permission case lets in, as a clause. */
function whoOf (c: PermissionCase): string {
  switch (c.expect.kind) {
    case 'everyone': return 'anyone, signed in or not'
    case 'signed-in': return 'any signed-in user (anonymous callers get 401)'
    case 'nobody': return `nobody (${c.why})`
    case 'can': {
      const caps = c.expect.anyOf.map((cap) => `\`${cap}\``).join(' or ')
      return `users with ${caps}${c.why === c.expect.anyOf.join(' or ') ? '' : ` (${c.why})`}`
    }
    case 'outcomes': return c.why
  }
}

/**
 * An operation's description, from its declaration: what it does (its own
 * `description`), who may call it (its permission's cases, as the
 * permission matrix reads them), paging, whether anonymous answers are kept,
 * and its rate-limit class.
 */
function descriptionOf (ep: EndpointDecl<any>, method: Method, listing: boolean): string {
  const out: string[] = []
  if (ep.description !== undefined) out.push(ep.description)
  else if (ep.summary !== undefined) out.push(`${ep.summary}.`)
  const who = [...new Set(ep.permission.cases.map(whoOf))]
  out.push(who.length === 0
    ? 'Who may call it: decided by the service serving this namespace.'
    : `Who may call it: ${who.join('; ')}.${ep.permission.cases.every((c) => c.expect.kind === 'everyone') ? '' : ' Others get 401 (anonymous) or 403 (signed in), in the error shape.'}`)
  if (method === 'GET' && listing && argsOf(ep).some((a) => a.name === 'per_page')) {
    out.push('Answers one page (`page`, `per_page`); the `X-CMS-Total` and `X-CMS-TotalPages` headers give the totals, `Link` the neighbouring pages.')
  }
  if (ep.cache === 'public') out.push('An anonymous caller\'s answer is kept and sent again for the same address until the next write to the database.')
  if (ep.streamBody !== undefined) out.push('The request body is read as a stream (an upload), not as JSON.')
  out.push(`Rate-limit class: \`${rateClassOf(ep, method)}\` (docs/guides/rate-limits.md).`)
  return out.join(' ')
}

/**
 * Whether the route's GET answers a list: it pages (`per_page`), or the
 * same path with a variable after it is the item route (`/posts/{id}/autosaves`
 * beside `/posts/{parent}/autosaves/{id}`) and its schema is an item's.
 */
function lists (decl: RouteDecl, routes: readonly RouteDecl[]): boolean {
  const get = decl.endpoints.find((ep) => ep.methods.includes('GET'))
  if (get === undefined || decl.schema === undefined) return false
  if (argsOf(get).some((a) => a.name === 'per_page')) return true
  if (decl.schema.properties === undefined) return false
  const shape = (p: string): string => p.replace(/\{\w+\}/g, '{}')
  const items = `${shape(decl.path)}/{}`
  return routes.some((r) => shape(r.path) === items)
}

/** What the handler answers on success: the declared status, else 201 for a create, else 200. */
function successStatusOf (decl: RouteDecl, ep: EndpointDecl<any>, method: Method, listing: boolean): number {
  if (ep.status !== undefined) return ep.status
  return method === 'POST' && listing && decl.schema !== undefined ? 201 : 200
}

function successOf (decl: RouteDecl, ep: EndpointDecl<any>, method: Method, listing: boolean, status: number, refOf: (s: JsonSchema) => JsonSchema): Record<string, unknown> {
  const description = ep.summary ?? (status === 201 ? 'Created' : 'OK')
  const json = (schema: JsonSchema, extra: Record<string, unknown> = {}): Record<string, unknown> =>
    ({ description, ...extra, content: { 'application/json': { schema } } })
  if (status === 204) return { description }
  if (ep.produces !== undefined) return { description, content: { [ep.produces]: { schema: { type: 'string', format: 'binary' } } } }
  // A titled schema becomes a named component (shared by the routes answering it).
  if (ep.response !== undefined) return json(typeof ep.response.title === 'string' ? refOf(ep.response as JsonSchema) : cleanSchema(ep.response as JsonSchema, false))
  if (decl.schema === undefined) return json({})
  const item = refOf(decl.schema)
  if (method === 'GET' && listing) {
    const pages = argsOf(ep).some((a) => a.name === 'per_page')
    return json({ type: 'array', items: item }, pages ? { headers: PAGINATION_HEADERS } : {})
  }
  if (method === 'DELETE') {
    // A list's DELETE removes them all; an item's trashes it (the item) or deletes it (`deleted`, `previous`).
    if (listing) return json({ type: 'object', properties: { deleted: { type: 'boolean' }, count: { type: 'integer' } } })
    return json({ anyOf: [item, { type: 'object', required: ['deleted'], properties: { deleted: { type: 'boolean' }, previous: item } }] })
  }
  if (status === 201) return json(item, { headers: { Location: { description: 'The URL of the new item.', schema: { type: 'string', format: 'uri' } } } })
  return json(item)
}

/** Names each distinct item schema after its title (`post` -> `Post`) and answers a `$ref` to it. */
function itemSchemaNamer (schemas: Record<string, JsonSchema>): (schema: JsonSchema) => JsonSchema {
  const named = new Map<JsonSchema, string>()
  const byText = new Map<string, string>()
  return (schema) => {
    let name = named.get(schema)
    if (name === undefined) {
      const clean = cleanSchema(schema, false)
      const text = JSON.stringify(clean)
      name = byText.get(text)
      if (name === undefined) {
        const base = pascal(String(schema.title ?? 'Item'))
        name = base
        for (let n = 2; schemas[name] !== undefined; n++) name = `${base}${n}`
        schemas[name] = clean
        byText.set(text, name)
      }
      named.set(schema, name)
    }
    return { $ref: `#/components/schemas/${name}` }
  }
}

/**
 * The endpoint's example in the operation: each argument on its parameter
 * (path, query), the rest as the body's (JSON, or an upload's form fields
 * beside its `file`), the response as the success's.
 */
function addExample (op: Doc, example: EndpointExample, status: number): void {
  const body = { ...example.request }
  for (const p of (op.parameters ?? []) as Doc[]) {
    if (!(p.name in body)) continue
    p.example = body[p.name]
    // An upload's arguments go in the query or as form fields: shown in both.
    if (op.requestBody?.content?.['multipart/form-data'] === undefined || p.in === 'path') delete body[p.name]
  }
  const content = (op.requestBody?.content ?? {}) as Record<string, Doc>
  if (content['application/json'] !== undefined) content['application/json'].example = body
  if (content['multipart/form-data'] !== undefined) content['multipart/form-data'].example = { file: '(the file)', ...body }
  const answer = op.responses[status]?.content?.['application/json']
  if (example.response !== undefined && answer !== undefined) answer.example = example.response
}

/** The request's parameters and body: cleaned schemas, string-or-object for rendered fields. */
function fixArguments (op: Doc, ep: EndpointDecl<any>): void {
  for (const p of (op.parameters ?? []) as Doc[]) {
    if (p.schema !== undefined) p.schema = cleanSchema(p.schema, true)
  }
  // An upload's form fields are its arguments too.
  const form = op.requestBody?.content?.['multipart/form-data']
  if (form?.schema !== undefined) form.schema = cleanSchema(form.schema, true)
  const body = op.requestBody?.content?.['application/json']
  if (body?.schema !== undefined) {
    body.schema = cleanSchema(body.schema, true)
    const required = argsOf(ep).filter((a) => a.required && a.name in (body.schema.properties ?? {}))
    if (required.length === 0) op.requestBody.required = false
  }
}

/**
 * A copy of a declared schema that JSON Schema 2020-12 (OpenAPI 3.1) reads as
 * meant: no draft-04 `$schema`, `readOnly` for the core's `readonly`, no
 * boolean `required`, defaults of their own type. In arguments (`args`), an
 * object with a `raw` member also takes the raw value as a string, as the
 * write handlers do.
 */
export function cleanSchema (schema: JsonSchema, args: boolean): JsonSchema {
  if (Array.isArray(schema)) return schema.map((s) => typeof s === 'object' && s !== null ? cleanSchema(s, args) : s) as unknown as JsonSchema
  const out: JsonSchema = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema' || key === 'readonly' || (key === 'required' && typeof value === 'boolean')) continue
    if ((key === 'properties' || key === 'patternProperties') && typeof value === 'object' && value !== null) {
      out[key] = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([k, v]) => [k, cleanSchema(v, args)]))
    } else if (['items', 'additionalProperties', 'not', 'anyOf', 'oneOf', 'allOf'].includes(key) && typeof value === 'object' && value !== null) {
      out[key] = cleanSchema(value as JsonSchema, args)
    } else {
      out[key] = value
    }
  }
  if (schema.readonly === true) out.readOnly = true
  if (!args) answeredAsWritten(out)
  if ('default' in out) {
    const fitted = defaultFor(out)
    if (fitted.length === 0) delete out.default
    else out.default = fitted[0]
  }
  if (args && typesOf(out).includes('object') && out.properties?.raw !== undefined) {
    const { description, ...object } = out
    return { ...(description !== undefined ? { description } : {}), anyOf: [{ type: 'string' }, object] }
  }
  return out
}

/**
 * What answers really hold where the core's schemas promise more (as the
 * real product's do): times in the site's zone without an offset (not RFC
 * 3339 `date-time`), an empty string for a URL or an e-mail address not
 * set, an empty `meta` answered as `[]` (PHP's empty array), and `trash`
 * among the statuses of a post.
 */
function answeredAsWritten (out: JsonSchema): void {
  if (out.format === 'date-time') {
    delete out.format
    out.pattern = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}'
  } else if (out.format === 'uri' || out.format === 'email') {
    out.description = `${out.description ?? ''}${out.description === undefined ? '' : ' '}(${out.format === 'uri' ? 'a URL' : 'an e-mail address'}, or empty)`
    delete out.format
  }
  // A trashed post is answered too (by its DELETE, and to its editors), with the status a write cannot set.
  const status = out.properties?.status as JsonSchema | undefined
  if (Array.isArray(status?.enum) && status.enum.includes('publish') && !status.enum.includes('trash')) {
    out.properties.status = { ...status, enum: [...status.enum, 'trash'] }
  }
  const meta = out.properties?.meta as JsonSchema | undefined
  if (meta !== undefined && meta.type === 'object') {
    out.properties.meta = { anyOf: [meta, { type: 'array', maxItems: 0, description: 'No meta: an empty list.' }] }
  }
}

function typesOf (schema: JsonSchema): string[] {
  return Array.isArray(schema.type) ? schema.type : typeof schema.type === 'string' ? [schema.type] : []
}

/**
 * The default made valid for the schema's type (`[]` around a single value
 * of a list, as the core's index gives `status: 'publish'` for a list); empty
 * when it cannot be.
 */
function defaultFor (schema: JsonSchema): unknown[] {
  const value = schema.default
  const types = typesOf(schema)
  if (types.length === 0 || types.some((t) => fits(value, t))) return allowed(schema, value) ? [value] : []
  if (types.includes('array') && value !== null && typeof value !== 'object') {
    const items = (value === '' ? [] : [value])
    const itemTypes = typesOf(schema.items ?? {})
    const each = (v: unknown): boolean => (itemTypes.length === 0 || itemTypes.some((t) => fits(v, t))) && allowed(schema.items ?? {}, v)
    return items.every(each) ? [items] : []
  }
  return []
}

/** Whether an `enum` (if any) lists the value; each member of a list is checked against `items`. */
function allowed (schema: JsonSchema, value: unknown): boolean {
  if (Array.isArray(value) && schema.items !== undefined) return value.every((v) => allowed(schema.items, v))
  return !Array.isArray(schema.enum) || schema.enum.includes(value)
}

function fits (value: unknown, type: string): boolean {
  switch (type) {
    case 'string': return typeof value === 'string'
    case 'integer': return Number.isInteger(value)
    case 'number': return typeof value === 'number'
    case 'boolean': return typeof value === 'boolean'
    case 'null': return value === null
    case 'array': return Array.isArray(value)
    case 'object': return typeof value === 'object' && value !== null && !Array.isArray(value)
    default: return false
  }
}

/** `GET /cms/v2/posts/{id}` -> `getCmsV2PostsById`. */
function operationIdOf (method: string, path: string): string {
  const words = path.split('/').filter((s) => s !== '').map((s) => s.startsWith('{') ? `by ${s.slice(1, -1)}` : s)
  return method.toLowerCase() + (words.length === 0 ? 'Index' : pascal(words.join(' ')))
}

function uniqueId (ids: Set<string>, id: string): string {
  let out = id
  for (let n = 2; ids.has(out); n++) out = `${id}${n}`
  ids.add(out)
  return out
}

function pascal (text: string): string {
  return text.split(/[^A-Za-z0-9]+/).filter((w) => w !== '').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')
}
