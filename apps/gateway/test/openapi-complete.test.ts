/**
 * The API reference is complete and true (issue 34, item 5). For profiles A
 * and B, every operation of /openapi.json has a summary, a description
 * (who may call it and the rest the declaration says), a schema for the
 * body of its success status, a request body schema for every write that
 * takes arguments, and the error responses in the
 * `{code, message, data: {status}}` shape for 400, 401, 403 and 404. Then
 * every route is called once as an administrator, as the permission prober
 * calls it (its fixtures and valid arguments: `prober().send`), and each
 * answer is checked against the document: a success against the schema of
 * the documented success status (which must be the status answered), an
 * error against the error shape (or the route's own error body).
 * Examples (`EndpointDecl.example`): the main routes (MAIN_ROUTES) show an
 * example request and answer, every example in the document is valid
 * against the schema beside it, and every declared example request passes
 * the kernel's own validation of its endpoint's arguments.
 *
 * The schemas are checked with Ajv (JSON Schema 2020-12, as OpenAPI 3.1
 * uses), the one that @seriousme/openapi-schema-validator (a devDependency)
 * brings and uses: it is resolved from there, not declared again.
 */
import { createRequire } from 'node:module'
import t from 'tap'
import { permissionMatrix } from '@cms/core'
import { prober, targetsOf } from '@cms/core/testing'
import { argsOf, endpointValidator, type RouteDecl } from '@cms/rest'
import { gatewayApp } from './helpers.js'

type Doc = Record<string, any>
interface Ajv { addSchema: (s: object, key: string) => unknown, compile: (s: object) => AjvValidate }
interface AjvValidate { (data: unknown): boolean, errors?: Array<{ instancePath: string, message?: string }> | null }

const fromValidator = createRequire(createRequire(import.meta.url).resolve('@seriousme/openapi-schema-validator'))
const Ajv2020 = (fromValidator('ajv/dist/2020.js') as { default: new (o: object) => Ajv }).default
const addFormats = (fromValidator('ajv-formats') as { default: (a: Ajv) => void }).default

const ERRORS = ['400', '401', '403', '404']

/** A response object, its `$ref` followed. */
function resolve (doc: Doc, r: Doc | undefined): Doc | undefined {
  if (r?.$ref === undefined) return r
  return (r.$ref as string).slice(2).split('/').reduce<any>((node, key) => node?.[key], doc)
}

function jsonSchemaOf (doc: Doc, r: Doc | undefined): Doc | undefined {
  return resolve(doc, r)?.content?.['application/json']?.schema
}

/** Whether a response's schema is the error shape (itself, or within an `allOf`). */
function isErrorShape (schema: Doc | undefined): boolean {
  if (schema === undefined) return false
  if (schema.$ref === '#/components/schemas/Error') return true
  return Array.isArray(schema.allOf) && schema.allOf.some((s: Doc) => s.$ref === '#/components/schemas/Error')
}

/** Operations (HEAD left out: GET's twin) with what they lack. */
export function gapsOf (doc: Doc): { operations: number, noSummary: string[], noDescription: string[], noRequest: string[], noSchema: string[], noErrors: string[] } {
  const out = { operations: 0, noSummary: [] as string[], noDescription: [] as string[], noRequest: [] as string[], noSchema: [] as string[], noErrors: [] as string[] }
  for (const [path, item] of Object.entries(doc.paths as Record<string, Doc>)) {
    for (const [method, op] of Object.entries(item)) {
      if (method === 'head') continue
      out.operations++
      const name = `${method.toUpperCase()} ${path}`
      if (typeof op.summary !== 'string' || op.summary.trim() === '') out.noSummary.push(name)
      if (typeof op.description !== 'string' || !op.description.includes('Who may call it:')) out.noDescription.push(name)
      // A write's arguments: in the body (JSON), or all in the path and query (a DELETE, an upload's stream).
      const body = op.requestBody?.content
      if (['post', 'put', 'patch'].includes(method) && body !== undefined && Object.values(body as Record<string, Doc>).some((m) => m.schema === undefined)) out.noRequest.push(name)
      const success = Object.keys(op.responses ?? {}).filter((s) => s.startsWith('2'))
      const schema = success.length === 1 ? jsonSchemaOf(doc, op.responses[success[0]!]) : undefined
      const documented = success.length === 1 && (success[0] === '204' || resolve(doc, op.responses[success[0]!])?.content?.['application/json'] === undefined)
        // No content, or a file (its media type documented).
        ? Object.keys(resolve(doc, op.responses[success[0]!])?.content ?? {}).length > 0 || success[0] === '204'
        : schema !== undefined && Object.keys(schema).length > 0
      if (!documented) out.noSchema.push(name)
      const missing = ERRORS.filter((s) => !isErrorShape(jsonSchemaOf(doc, op.responses?.[s])))
      if (missing.length > 0) out.noErrors.push(`${name} (${missing.join(', ')})`)
    }
  }
  return out
}

/**
 * The main routes, which must show an example request (when they take a
 * body) and answer: those the README's first walk-through and
 * docs/guides/content.md call, and what issue 34 (item 5) names: posts,
 * pages, media, the current user, categories, tags, comments, settings,
 * search, batch, the discovery index and seo/v1's get_head (profile B).
 */
const MAIN_ROUTES: Record<'A' | 'B', string[]> = {
  A: [
    'GET /', 'GET /cms/v2',
    ...['posts', 'pages', 'categories', 'tags', 'comments'].flatMap((base) => [
      `GET /cms/v2/${base}`, `POST /cms/v2/${base}`, `GET /cms/v2/${base}/{id}`, `POST /cms/v2/${base}/{id}`, `DELETE /cms/v2/${base}/{id}`
    ]),
    'GET /cms/v2/media', 'POST /cms/v2/media', 'GET /cms/v2/media/{id}',
    'GET /cms/v2/users/me', 'GET /cms/v2/settings', 'POST /cms/v2/settings', 'GET /cms/v2/search', 'POST /batch/v1'
  ],
  B: []
}
MAIN_ROUTES.B = [...MAIN_ROUTES.A, 'GET /seo/v1/get_head']

interface Example { where: string, schema: Doc | undefined, value: unknown }

/** Every example the document shows: on parameters, request bodies and responses. */
export function examplesOf (doc: Doc): Example[] {
  const out: Example[] = []
  for (const [path, item] of Object.entries(doc.paths as Record<string, Doc>)) {
    for (const [method, op] of Object.entries(item)) {
      const name = `${method.toUpperCase()} ${path}`
      for (const p of (op.parameters ?? []) as Doc[]) {
        if ('example' in p) out.push({ where: `${name}: ${p.in} parameter ${String(p.name)}`, schema: p.schema, value: p.example })
      }
      for (const [type, media] of Object.entries((op.requestBody?.content ?? {}) as Record<string, Doc>)) {
        if ('example' in media) out.push({ where: `${name}: request (${type})`, schema: media.schema, value: media.example })
      }
      for (const [status, r] of Object.entries((op.responses ?? {}) as Record<string, Doc>)) {
        for (const [type, media] of Object.entries((resolve(doc, r)?.content ?? {}) as Record<string, Doc>)) {
          if ('example' in media) out.push({ where: `${name}: ${status} answer (${type})`, schema: media.schema, value: media.example })
        }
      }
    }
  }
  return out
}

/** The main routes without an example answer, or without an example body when they take one. */
function mainWithoutExamples (doc: Doc, main: readonly string[]): string[] {
  const out: string[] = []
  for (const name of main) {
    const [method, path] = name.split(' ') as [string, string]
    const op = doc.paths[`/cms-json${path}`]?.[method.toLowerCase()] as Doc | undefined
    if (op === undefined) {
      out.push(`${name}: not in the document`)
      continue
    }
    const success = Object.keys(op.responses ?? {}).find((s) => s.startsWith('2'))
    if (success === undefined || resolve(doc, op.responses[success])?.content?.['application/json']?.example === undefined) out.push(`${name}: no example answer`)
    // A JSON body or an upload's form fields (a raw upload's bytes have no example).
    const bodies = Object.entries((op.requestBody?.content ?? {}) as Record<string, Doc>).filter(([type]) => type !== 'application/octet-stream')
    if (bodies.some(([, m]) => m.example === undefined)) out.push(`${name}: no example request body`)
  }
  return out
}

/**
 * The declared example requests checked as a request is: by the kernel's
 * own validation of the endpoint's arguments (`endpointValidator`), each
 * argument named being one the endpoint declares.
 */
function invalidExampleRequests (routes: readonly RouteDecl[]): { checked: number, wrong: string[] } {
  const wrong: string[] = []
  let checked = 0
  for (const decl of routes) {
    for (const ep of decl.endpoints) {
      const request = ep.example?.request
      if (request === undefined) continue
      checked++
      const where = `${ep.methods.join(',')} ${decl.path}`
      const declared = new Set(argsOf(ep).map((a) => a.name))
      const unknown = Object.keys(request).filter((k) => !declared.has(k))
      if (unknown.length > 0) wrong.push(`${where}: the example sends undeclared arguments ${unknown.join(', ')}`)
      try {
        endpointValidator(ep)(structuredClone(request))
      } catch (err) {
        wrong.push(`${where}: ${(err as Error).message} ${JSON.stringify((err as { data?: unknown }).data ?? '')}`)
      }
    }
  }
  return { checked, wrong }
}

for (const profile of ['A', 'B'] as const) {
  t.test(`profile ${profile}: every operation is documented, and answers as documented`, async (t) => {
    const h = await gatewayApp({ env: { CMS_DEPLOYMENT: profile } })
    t.teardown(h.close)
    const doc = JSON.parse((await h.app.inject({ method: 'GET', url: '/openapi.json' })).body) as Doc

    const gaps = gapsOf(doc)
    t.comment(`profile ${profile}: ${gaps.operations} operations; without a summary ${gaps.noSummary.length}, without a description ${gaps.noDescription.length}, without a request schema ${gaps.noRequest.length}, without a success schema ${gaps.noSchema.length}, without the error responses ${gaps.noErrors.length}`)
    t.ok(gaps.operations > 100, `${gaps.operations} operations`)
    t.same(gaps.noSummary, [], 'every operation has a summary')
    t.same(gaps.noDescription, [], 'every operation has a description saying who may call it')
    t.same(gaps.noRequest, [], 'every request body is documented by a schema')
    t.same(gaps.noSchema, [], 'every operation documents the body of its success')
    t.same(gaps.noErrors, [], 'every operation documents 400, 401, 403 and 404 in the error shape')

    // Schemas compiled with the document's components reachable under `doc#/components/...`.
    const ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false })
    addFormats(ajv)
    ajv.addSchema({ components: doc.components }, 'doc')
    const compiled = new Map<string, AjvValidate>()
    const validatorOf = (schema: Doc): AjvValidate => {
      const text = JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')
      let v = compiled.get(text)
      if (v === undefined) {
        v = ajv.compile(JSON.parse(text) as object)
        compiled.set(text, v)
      }
      return v
    }
    const problemsOf = (schema: Doc, body: unknown): string | undefined => {
      const validate = validatorOf(schema)
      if (validate(body)) return undefined
      return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`).join('; ')
    }

    // Examples: the main routes have them, and each one (wherever it is) is valid.
    t.same(mainWithoutExamples(doc, MAIN_ROUTES[profile]), [], `the ${MAIN_ROUTES[profile].length} main routes show an example request and answer`)
    const examples = examplesOf(doc)
    const badExamples = examples.flatMap((e) => {
      if (e.schema === undefined) return [`${e.where}: no schema`]
      const problems = problemsOf(e.schema, e.value)
      return problems === undefined ? [] : [`${e.where}: ${problems}`]
    })
    t.comment(`profile ${profile}: ${examples.length} examples in the document`)
    t.ok(examples.length >= MAIN_ROUTES[profile].length, 'the examples are in the document')
    t.same(badExamples, [], 'every example in the document is valid against its schema')
    const requests = invalidExampleRequests(h.app.restRoutes)
    t.ok(requests.checked >= 20, `${requests.checked} example requests checked by the kernel's validation`)
    t.same(requests.wrong, [], 'every example request passes the kernel\'s validation of its endpoint\'s arguments')

    // The unknown route's 404, as the document shows every 404.
    const nowhere = await h.app.inject({ method: 'GET', url: '/cms-json/no-such/v1/route' })
    t.equal(nowhere.statusCode, 404)
    t.equal(problemsOf(jsonSchemaOf(doc, { $ref: '#/components/responses/Error404' })!, JSON.parse(nowhere.body)), undefined, 'an unknown route answers the documented 404 body')

    // Every route, once, as an administrator.
    const matrix = new Map(permissionMatrix(h.app.restRoutes, h.app.platform.services.roles).map((e) => [e.key, e.rows]))
    const p = await prober(h)
    const wrong: string[] = []
    let checked = 0
    let successes = 0
    for (const target of targetsOf(h.app)) {
      const c = matrix.get(target.key)?.[0]
      if (c === undefined) continue // the permission test fails such a route
      const op = doc.paths[`/cms-json${target.decl.path === '/' ? '/' : target.decl.path}`]?.[target.method.toLowerCase()] as Doc | undefined
      if (op === undefined) {
        wrong.push(`${target.key}: not in the document`)
        continue
      }
      const { request, response } = await p.send(target, c)
      checked++
      const status = String(response.status)
      const type = String(response.headers['content-type'] ?? '')
      const where = `${target.key} (${request.method} ${request.url} answered ${status})`
      const documented = resolve(doc, op.responses[status])
      if (response.status < 300) {
        successes++
        if (documented === undefined) {
          wrong.push(`${where}: the document gives ${Object.keys(op.responses).filter((s) => s.startsWith('2')).join(', ')} as the success status`)
          continue
        }
        if (response.status === 204) continue
        if (!type.startsWith('application/json')) {
          if (documented.content?.[type.split(';')[0]!] === undefined) wrong.push(`${where}: answers ${type}, documents ${Object.keys(documented.content ?? {}).join(', ')}`)
          continue
        }
        const problems = problemsOf(documented.content['application/json'].schema, JSON.parse(response.body))
        if (problems !== undefined) wrong.push(`${where}: ${problems}; body ${response.body.slice(0, 300)}`)
      } else {
        // An error: the route's own error body when it documents one, else the error shape.
        const schema = jsonSchemaOf(doc, documented) ?? { $ref: '#/components/schemas/Error' }
        let body: unknown
        try { body = JSON.parse(response.body) } catch { body = response.body }
        const problems = problemsOf(schema, body)
        if (problems !== undefined) wrong.push(`${where}: ${problems}; body ${response.body.slice(0, 300)}`)
      }
    }
    if (profile === 'B') {
      // get_head: `{html, json, status}`, and its 404 the 404 page's head in the error shape.
      const head = doc.paths['/cms-json/seo/v1/get_head'].get
      t.same(Object.keys(jsonSchemaOf(doc, head.responses['200'])?.properties ?? {}).sort(), ['html', 'json', 'status'], 'get_head answers {html, json, status}')
      const missing = await h.app.inject({ method: 'GET', url: '/cms-json/seo/v1/get_head?url=http%3A%2F%2Fcms.test%2F%3Fp%3D999999' })
      t.equal(missing.statusCode, 404)
      const body = JSON.parse(missing.body) as Doc
      t.ok(typeof body.html === 'string' && body.code === 'seo_head_not_found', 'the 404 head with the error code')
      t.equal(problemsOf(jsonSchemaOf(doc, head.responses['404'])!, body), undefined, 'get_head\'s 404 body is the documented one')
    }
    t.comment(`profile ${profile}: ${checked} answers checked, ${successes} of them successes`)
    t.ok(successes > checked / 2, `most probes succeed (${successes} of ${checked}), so success bodies are what is checked`)
    t.same(wrong, [], 'every answer is what the document says')
  })
}
