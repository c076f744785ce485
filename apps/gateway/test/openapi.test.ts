/**
 * The OpenAPI document is one a client generator can use: each profile's
 * document validates as OpenAPI 3.1 (@seriousme/openapi-schema-validator),
 * operations document the status they answer and their response schema, and
 * TypeScript types derived from the document for posts compile, both for a
 * client's own calls and for the answers the service really gave.
 *
 * No OpenAPI client generator is installed, so the types are derived here by
 * a small walker (`typesOf` below) following the same rules as such
 * generators (object -> interface with optional members unless required,
 * enum -> union of literals, anyOf -> union, `$ref` -> named type); tsc
 * (the `typescript` package) compiles them.
 */
import t from 'tap'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ts from 'typescript'
import { Validator } from '@seriousme/openapi-schema-validator'
import { createCaller } from '@cms/core/testing'
import { gatewayApp } from './helpers.js'

type Doc = Record<string, any>

for (const deployment of ['A', 'B']) {
  t.test(`the OpenAPI document of profile ${deployment} is valid OpenAPI 3.1`, async (t) => {
    const h = await gatewayApp({ env: { CMS_DEPLOYMENT: deployment } })
    t.teardown(h.close)
    const doc = JSON.parse((await h.app.inject({ method: 'GET', url: '/openapi.json' })).body) as Doc
    const result = await new Validator().validate(doc)
    t.ok(result.valid, `valid: ${JSON.stringify(result.errors)?.slice(0, 2000)}`)
    t.same(doc.servers, [{ url: 'http://cms.test' }], 'a servers entry (the base URL)')

    const ids = new Set<string>()
    for (const [path, item] of Object.entries(doc.paths as Record<string, Doc>)) {
      for (const [method, op] of Object.entries(item)) {
        t.ok(op.operationId, `${method} ${path} has an operation id`)
        t.notOk(ids.has(op.operationId), `operation id ${op.operationId} is unique`)
        ids.add(op.operationId)
        const success = Object.keys(op.responses).filter((s) => s.startsWith('2'))
        t.equal(success.length, 1, `${method} ${path}: one success status`)
        for (const status of ['400', '401', '403', '404', '429']) t.ok(op.responses[status], `${method} ${path} documents ${status}`)
        if (!['get', 'head'].includes(method)) {
          for (const status of ['409', '412', '413']) t.ok(op.responses[status], `${method} ${path} documents ${status}`)
        }
      }
    }
    let defaults = 0
    walk(doc.paths, (node) => {
      // A schema's type is a name or a list of names; an object whose `type` is a schema is a `properties` map (members named type and default).
      if ((typeof node.type === 'string' || Array.isArray(node.type)) && 'default' in node) {
        defaults++
        if (!fitsType(node.default, node.type)) t.fail(`default ${JSON.stringify(node.default)} is not of type ${JSON.stringify(node.type)}`)
      }
    })
    t.ok(defaults > 10, `${defaults} defaults checked against their types`)
  })
}

t.test('posts: statuses, schemas and types a generated client compiles', async (t) => {
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A' } })
  t.teardown(h.close)
  const doc = JSON.parse((await h.app.inject({ method: 'GET', url: '/openapi.json' })).body) as Doc
  const posts = doc.paths['/cms-json/cms/v2/posts']
  const post = doc.paths['/cms-json/cms/v2/posts/{id}']

  t.same(Object.keys(posts.post.responses).filter((s) => s.startsWith('2')), ['201'], 'a create answers 201')
  t.same(posts.get.responses['200'].content['application/json'].schema, { type: 'array', items: { $ref: '#/components/schemas/Post' } }, 'a list is an array of the item schema')
  t.same(Object.keys(posts.get.responses['200'].headers).sort(), ['Link', 'X-CMS-Total', 'X-CMS-TotalPages'], 'with the pagination headers')
  t.same(post.get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/Post' })
  t.same(post.get.responses['404'], { $ref: '#/components/responses/Error404' })
  t.same(doc.components.schemas.Error.required, ['code', 'message', 'data'])
  const status = posts.get.parameters.find((p: Doc) => p.name === 'status')
  t.same(status.schema.default, ['publish'], 'the status list defaults to a list')
  const title = posts.post.requestBody.content['application/json'].schema.properties.title
  t.same(title.anyOf.map((s: Doc) => s.type), ['string', 'object'], 'title: a string or an object')
  t.equal(doc.components.schemas.Post.properties.title.properties.rendered.readOnly, true, 'readonly becomes readOnly')

  // The answers the service gives, checked against the derived types by tsc.
  const admin = await createCaller(h.store, 'administrator', { login: 'openapi-admin' })
  const created = await h.app.inject({ method: 'POST', url: '/cms-json/cms/v2/posts', headers: admin.headers, payload: { title: 'From a client', content: 'Hello', status: 'publish' } })
  t.equal(created.statusCode, 201, 'the service answers the documented 201')
  const listed = await h.app.inject({ method: 'GET', url: '/cms-json/cms/v2/posts?per_page=5' })
  t.equal(listed.statusCode, 200)
  t.equal(listed.headers['x-cms-total'], '1', 'the documented header')
  const missing = await h.app.inject({ method: 'GET', url: '/cms-json/cms/v2/posts/999999' })
  t.equal(missing.statusCode, 404)

  const types = typesOf(doc, {
    CreatePostBody: posts.post.requestBody.content['application/json'].schema,
    CreatePostResponse: posts.post.responses['201'].content['application/json'].schema,
    ListPostsResponse: posts.get.responses['200'].content['application/json'].schema,
    ListPostsQuery: { type: 'object', properties: Object.fromEntries(posts.get.parameters.map((p: Doc) => [p.name, p.schema])) },
    DeletePostResponse: post.delete.responses['200'].content['application/json'].schema,
    ApiError: { $ref: '#/components/schemas/Error' }
  })
  const usage = `import type { ApiError, CreatePostBody, CreatePostResponse, DeletePostResponse, ListPostsQuery, ListPostsResponse } from './client.js'
export const plain: CreatePostBody = { title: 'Hello', content: 'Body', status: 'draft' }
export const rich: CreatePostBody = { title: { raw: 'Hello' }, excerpt: { raw: 'Short' }, categories: [1] }
export const query: ListPostsQuery = { status: ['publish', 'draft'], per_page: 5, orderby: 'title' }
export const created: CreatePostResponse = ${created.body}
export const listed: ListPostsResponse = ${listed.body}
export const missing: ApiError = ${missing.body}
export const id: number | undefined = created.id
export const heading: string | undefined = listed[0]?.title?.rendered
export const code: number = missing.data.status
export const trashed: DeletePostResponse = created
export const gone: DeletePostResponse = { deleted: true, previous: created }
// @ts-expect-error a title is a string or an object, not a number
export const wrongTitle: CreatePostBody = { title: 42 }
// @ts-expect-error an unknown status
export const wrongStatus: CreatePostBody = { status: 'published' }
// @ts-expect-error the list's status filter is a list
export const wrongQuery: ListPostsQuery = { status: 'publish' }
`
  const dir = mkdtempSync(join(tmpdir(), 'cms-openapi-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'client.ts'), types)
  writeFileSync(join(dir, 'usage.ts'), usage)
  const program = ts.createProgram([join(dir, 'usage.ts')], {
    strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, types: [], skipLibCheck: true
  })
  const problems = ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName.slice(dir.length + 1) ?? ''} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`)
  t.same(problems, [], 'the derived types compile with the client code and the real answers')
})

function walk (node: unknown, visit: (node: Doc) => void): void {
  if (Array.isArray(node)) { for (const n of node) walk(n, visit); return }
  if (typeof node !== 'object' || node === null) return
  visit(node as Doc)
  for (const v of Object.values(node)) walk(v, visit)
}

function fitsType (value: unknown, type: string | string[]): boolean {
  return [type].flat().some((ty) => ty === 'array'
    ? Array.isArray(value)
    : ty === 'object'
      ? typeof value === 'object' && value !== null && !Array.isArray(value)
      : ty === 'integer'
        ? Number.isInteger(value)
        : ty === 'null'
          ? value === null
          : typeof value === ty) // eslint-disable-line valid-typeof -- ty is a JSON Schema type name, checked above
}

/** TypeScript declarations for the named schemas and every component schema they use. */
function typesOf (doc: Doc, roots: Record<string, Doc>): string {
  const out: string[] = []
  const done = new Set<string>()
  const pending: string[] = []
  const ref = (r: string): string => {
    const name = r.replace('#/components/schemas/', '')
    if (!done.has(name)) { done.add(name); pending.push(name) }
    return name
  }
  const typeOf = (s: Doc | boolean | undefined): string => {
    if (s === undefined || s === true || (typeof s === 'object' && Object.keys(s).length === 0)) return 'unknown'
    if (s === false) return 'never'
    if (typeof s.$ref === 'string') return ref(s.$ref)
    if (Array.isArray(s.anyOf ?? s.oneOf)) return (s.anyOf ?? s.oneOf).map((x: Doc) => `(${typeOf(x)})`).join(' | ')
    if (Array.isArray(s.enum)) return s.enum.map((v: unknown) => JSON.stringify(v)).join(' | ')
    if ('const' in s) return JSON.stringify(s.const)
    const types: string[] = Array.isArray(s.type) ? s.type : s.type !== undefined ? [s.type] : ['unknown']
    return types.map((ty) => {
      switch (ty) {
        case 'string': return 'string'
        case 'integer': case 'number': return 'number'
        case 'boolean': return 'boolean'
        case 'null': return 'null'
        case 'array': return `Array<${typeOf(s.items)}>`
        case 'object': {
          const required = new Set<string>(Array.isArray(s.required) ? s.required : [])
          const members = Object.entries((s.properties ?? {}) as Record<string, Doc>)
            .map(([k, v]) => `${JSON.stringify(k)}${required.has(k) ? '' : '?'}: ${typeOf(v)}`)
          // Without additionalProperties: false, other members may come (JSON Schema's default).
          if (members.length === 0 && typeof s.additionalProperties === 'object') return `Record<string, ${typeOf(s.additionalProperties)}>`
          const rest = s.additionalProperties === false ? [] : ['[key: string]: unknown']
          return `{ ${[...members, ...rest].join('; ')} }`
        }
        default: return 'unknown'
      }
    }).join(' | ')
  }
  for (const [name, schema] of Object.entries(roots)) out.push(`export type ${name} = ${typeOf(schema)}`)
  while (pending.length > 0) {
    const name = pending.shift()!
    out.push(`export type ${name} = ${typeOf(doc.components.schemas[name])}`)
  }
  return out.join('\n') + '\n'
}
