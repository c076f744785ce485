/**
 * The declarations that derive: a namespace named once with paths relative
 * to it (a route of another namespace stops the start), write arguments
 * from an item schema in create and update mode, the `context` argument
 * from the schema's contexts, the collection parameters, `invalidParam`
 * and `checkPage` with a declared error. Served through the kernel, so what
 * is checked is what the index and the validation answer.
 */
import t from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Static, TObject } from '@sinclair/typebox'
import {
  argsFromSchema, argsOf, checkPage, everyone, collectionParams, contextParam, declareErrors, defineNamespace, endpoint, field,
  invalidParam, itemSchema, kernelServerOptions, restKernel, route, unvalidated, type NamespaceDecl
} from '../src/index.js'

const ALL = ['view', 'edit', 'embed']
/** The JSON a schema is shown as (TypeBox's symbols left out). */
const json = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema))

// A schema whose fields cover each case: read-only, required, defaulted, edit-only, unvalidated.
const noteSchema = itemSchema('note', {
  id: field({ description: 'Unique identifier.', type: 'integer', context: ALL, readonly: true }),
  title: field({ description: 'Title.', type: 'string', context: ALL, required: true, maxLength: 20 }),
  status: field({ description: 'Status.', type: 'string', enum: ['draft', 'publish'], context: ['view', 'edit'], default: 'draft' }),
  secret: field({ description: 'Edit only.', type: ['string', 'null'], context: ['edit'] }),
  tags: field({ description: 'Tags.', type: 'array', items: { type: 'integer' }, context: ['view', 'edit'] }),
  body: unvalidated(field({ description: 'Body.', type: 'object', context: ['edit'], properties: { raw: { type: 'string', context: ['edit'] } } })),
  link: field({ description: 'URL.', type: 'string', format: 'uri', context: ALL, readonly: true })
})

t.test('write arguments from an item schema: create and update', async (t) => {
  const create = argsOf(endpoint({ methods: ['POST'], args: argsFromSchema(noteSchema, 'create'), permission: everyone, handler: () => null }))
  const update = argsOf(endpoint({ methods: ['PUT'], args: argsFromSchema(noteSchema, 'update'), permission: everyone, handler: () => null }))
  t.same(create.map((a) => a.name), ['title', 'status', 'secret', 'tags', 'body'], 'read-only fields dropped, schema order kept')
  t.same(update.map((a) => a.name), ['title', 'status', 'secret', 'tags', 'body'])
  const byName = (list: typeof create) => Object.fromEntries(list.map((a) => [a.name, a]))
  const c = byName(create)
  const u = byName(update)
  t.same(json(c.title!.schema), { description: 'Title.', type: 'string', maxLength: 20 }, 'schema keywords kept; context and required are not keywords of an argument')
  t.equal(c.title!.required, true, 'required on create')
  t.equal(u.title!.required, false, 'never required on update')
  t.equal(c.status!.schema.default, 'draft', 'default on create')
  t.equal(c.status!.required, false, 'a defaulted argument is not required')
  t.equal('default' in u.status!.schema, false, 'no default on update')
  t.same(json(c.secret!.schema), { description: 'Edit only.', type: ['string', 'null'] })
  t.equal(c.body!.validate, false, 'an unvalidated field stays unvalidated')
  t.equal(c.tags!.validate, true)

  // Types: the handler sees the fields with the create/update optionality.
  type CreateParams = Static<TObject<ReturnType<typeof createArgs>>>
  const createArgs = () => argsFromSchema(noteSchema, 'create')
  t.ok(createArgs().title, 'the create arguments have the title')
  const sample: CreateParams = { title: 'x', status: 'publish' }
  const typedStatus: 'draft' | 'publish' = sample.status
  const typedTags: number[] | undefined = sample.tags
  t.equal(typedStatus, 'publish')
  t.equal(typedTags, undefined)
})

t.test('the context argument lists the contexts the schema uses', async (t) => {
  t.same(json(contextParam(noteSchema)), {
    description: 'Scope under which the request is made; determines fields present in response.',
    type: 'string',
    enum: ['view', 'embed', 'edit'],
    default: 'view'
  })
  const editOnly = itemSchema('x', { a: field({ type: 'string', context: ['edit'] }), b: field({ type: 'string', context: ['view', 'edit'] }) })
  t.same(contextParam(editOnly, 'edit').enum, ['view', 'edit'])
  t.equal(contextParam(editOnly, 'edit').default, 'edit')
})

t.test('collection parameters with per-route overrides', async (t) => {
  const params = collectionParams({ schema: noteSchema, orderby: { enum: ['date', 'title'], default: 'date', description: 'Sort by.' }, order: 'asc' })
  t.same(Object.keys(params), ['context', 'page', 'per_page', 'search', 'offset', 'order', 'orderby'])
  const args = Object.fromEntries(argsOf(endpoint({ methods: ['GET'], args: params, permission: everyone, handler: () => null })).map((a) => [a.name, a]))
  t.same(json(args.page!.schema), { description: 'Current page of the collection.', default: 1, minimum: 1, type: 'integer' })
  t.same(json(args.per_page!.schema), { description: 'Maximum number of items to be returned in result set.', default: 10, minimum: 1, maximum: 100, type: 'integer' })
  t.equal(args.order!.schema.default, 'asc')
  t.same(args.orderby!.schema.enum, ['date', 'title'])
  t.equal(args.search!.required, false)
  t.equal(args.offset!.required, false)
  const optional = collectionParams({ schema: noteSchema, orderby: { enum: ['date'], default: 'date', description: 'Sort.' }, perPage: { optional: true } })
  t.equal('default' in optional.per_page, false, 'per_page without a default when the list answers everything')
})

function notes (): NamespaceDecl {
  const listArgs = collectionParams({ schema: noteSchema, orderby: { enum: ['date', 'title'], default: 'date', description: 'Sort by.' } })
  const pageErrors = declareErrors({ rest_note_invalid_page_number: { status: 400, message: 'The page number requested is larger than the number of pages available.' } })
  return defineNamespace('notes/v1', [
    route({
      path: '/notes',
      schema: noteSchema,
      endpoints: [
        endpoint({
          methods: ['GET'],
          args: listArgs,
          permission: everyone,
          // Defaults typed as present: no `?? 10`, no casts.
          handler: (req) => {
            checkPage({ total: 3, perPage: req.params.per_page, page: req.params.page }, pageErrors.rest_note_invalid_page_number)
            const perPage: number = req.params.per_page
            const order: 'asc' | 'desc' = req.params.order
            return { perPage, order, orderby: req.params.orderby, context: req.params.context }
          }
        }),
        endpoint({
          methods: ['POST'],
          args: argsFromSchema(noteSchema, 'create'),
          permission: everyone,
          handler: (req) => {
            if (req.params.title === 'bad') throw invalidParam('title', 'title is bad.', { code: 'rest_bad_title', message: 'title is bad.', data: null })
            return { title: req.params.title, status: req.params.status }
          }
        })
      ]
    }),
    route({
      path: '/notes/(?P<id>[\\d]+)',
      schema: noteSchema,
      endpoints: [endpoint({ methods: ['PATCH'], args: argsFromSchema(noteSchema, 'update'), permission: everyone, handler: (req) => ({ id: req.params.id, status: req.params.status ?? null }) })]
    })
  ])
}

async function build (namespaces: NamespaceDecl[]): Promise<FastifyInstance> {
  const app = Fastify({ ...kernelServerOptions({}), logger: false })
  await app.register(restKernel, { namespaces, baseUrl: 'http://notes.test' })
  await app.ready()
  return app
}

t.test('a namespace declared once serves its relative paths', async (t) => {
  const app = await build([notes()])
  t.teardown(() => app.close())
  const index = JSON.parse((await app.inject({ method: 'GET', url: '/index.php?rest_route=/notes/v1' })).body)
  t.same(Object.keys(index.routes), ['/notes/v1', '/notes/v1/notes', '/notes/v1/notes/(?P<id>[\\d]+)'], 'paths placed under the namespace, the index form kept')
  t.equal(index.routes['/notes/v1/notes'].namespace, 'notes/v1')
  const postArgs = index.routes['/notes/v1/notes'].endpoints[1].args
  t.same(postArgs.title, { description: 'Title.', type: 'string', maxLength: 20, required: true })
  t.same(postArgs.status, { description: 'Status.', default: 'draft', type: 'string', enum: ['draft', 'publish'], required: false })
  t.equal(index.routes['/notes/v1/notes/(?P<id>[\\d]+)'].endpoints[0].args.title.required, false)

  const list = await app.inject({ method: 'GET', url: '/index.php?rest_route=/notes/v1/notes' })
  t.same(JSON.parse(list.body), { perPage: 10, order: 'desc', orderby: 'date', context: 'view' }, 'defaults applied before the handler')
  const past = await app.inject({ method: 'GET', url: '/index.php?rest_route=/notes/v1/notes&page=2&per_page=3' })
  t.equal(past.statusCode, 400)
  t.equal(JSON.parse(past.body).code, 'rest_note_invalid_page_number', 'checkPage throws the declared error')

  const missing = await app.inject({ method: 'POST', url: '/index.php?rest_route=/notes/v1/notes', payload: {} })
  t.equal(JSON.parse(missing.body).code, 'rest_missing_callback_param', 'required on create')
  const created = await app.inject({ method: 'POST', url: '/index.php?rest_route=/notes/v1/notes', payload: { title: 'a' } })
  t.same(JSON.parse(created.body), { title: 'a', status: 'draft' }, 'the default applies on create')
  const tooLong = await app.inject({ method: 'POST', url: '/index.php?rest_route=/notes/v1/notes', payload: { title: 'x'.repeat(21) } })
  t.equal(JSON.parse(tooLong.body).code, 'rest_invalid_param', 'the schema keywords validate')
  const bad = await app.inject({ method: 'POST', url: '/index.php?rest_route=/notes/v1/notes', payload: { title: 'bad' } })
  t.same(JSON.parse(bad.body), {
    code: 'rest_invalid_param',
    message: 'Invalid parameter(s): title',
    data: { status: 400, params: { title: 'title is bad.' }, details: { title: { code: 'rest_bad_title', message: 'title is bad.', data: null } } }
  }, 'invalidParam answers as the validation does')

  const updated = await app.inject({ method: 'PATCH', url: '/index.php?rest_route=/notes/v1/notes/4', payload: {} })
  t.same(JSON.parse(updated.body), { id: 4, status: null }, 'nothing required and no default on update')
})

t.test('a route of another namespace is refused at start', async (t) => {
  const stray = route({ namespace: 'other/v1', path: '/other/v1/things', endpoints: [endpoint({ methods: ['GET'], permission: everyone, handler: () => [] })] })
  t.throws(() => defineNamespace('notes/v1', [stray]), /route \/other\/v1\/things of namespace 'other\/v1' is registered under namespace 'notes\/v1'/)
  // Declared by hand, past defineNamespace: the kernel refuses to start.
  await t.rejects(build([{ name: 'notes/v1', routes: [stray] }]), /registered under namespace 'notes\/v1'/)
  const outside = route({ namespace: 'notes/v1', path: '/other/v1/things', endpoints: [endpoint({ methods: ['GET'], permission: everyone, handler: () => [] })] })
  await t.rejects(build([{ name: 'notes/v1', routes: [outside] }]), /registered under namespace/, 'a path outside the namespace too')
  const prefixOnly = route({ namespace: 'notes/v1', path: '/notes/v10/things', endpoints: [endpoint({ methods: ['GET'], permission: everyone, handler: () => [] })] })
  t.throws(() => defineNamespace('notes/v1', [prefixOnly]), /registered under namespace/, 'a longer namespace sharing the prefix is another namespace')
})
