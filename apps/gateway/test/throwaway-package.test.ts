/**
 * A package written inside this test (two routes, one table with its own
 * migrations folder, each route declaring its permission), composed by naming its namespace in
 * a profile and nothing else: it appears in the index, its namespace root,
 * OpenAPI, batch eligibility, the permission matrix and the fuzz harness.
 * And a namespace service migrates only the packages it composes (and what
 * they depend on).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { definePackage } from '@cms/core'
import { can, endpoint, everyone, handlerChecked, kernelErrors, route } from '@cms/rest'
import { openTestStore } from '@cms/store/testing'
import { gatewayApp } from './helpers.js'
import { checkPermissions, createCaller } from '@cms/core/testing'
import { anonymous } from '@cms/rest/testing'
import { targetsOf } from './harness/routes.js'
import { runFuzz } from './harness/fuzz.js'

const NS = 'notes/v1'

/** Its migrations folder, as drizzle-kit writes one: a journal and one SQL file. */
function migrationsFolder (): string {
  const dir = mkdtempSync(join(tmpdir(), 'cms-notes-'))
  mkdirSync(join(dir, 'meta'))
  writeFileSync(join(dir, 'meta', '_journal.json'), JSON.stringify({ version: '7', dialect: 'postgresql', entries: [{ idx: 0, version: '7', when: 1795790000000, tag: '0000_notes', breakpoints: true }] }))
  writeFileSync(join(dir, '0000_notes.sql'), 'CREATE TABLE "throwaway_notes" ("id" serial PRIMARY KEY NOT NULL, "text" text NOT NULL, "author" integer NOT NULL);')
  return dir
}

function notesPackage (folder: string) {
  return definePackage({
    name: '@cms/notes',
    dependencies: ['@cms/core'],
    namespaces: [NS],
    contribute (api) { api.migrations(folder) },
    serve (api) {
      const { store } = api.services
      api.namespace(NS, () => [route({
        namespace: NS,
        path: `/${NS}/notes`,
        allowBatch: true,
        endpoints: [
          endpoint({
            methods: ['GET'],
            args: {},
            summary: 'List notes',
            permission: everyone.because('public list'),
            handler: async () => await store.execute('select id, text from throwaway_notes order by id')
          }),
          endpoint({
            methods: ['POST'],
            // Checked by the handler below; declared, as a handler sees only declared arguments.
            args: { text: handlerChecked('The note: 1 to 200 letters, digits, spaces or .,!?-') },
            summary: 'Add a note',
            permission: can('edit_posts', { probe: { body: { text: 'probe' } } }),
            handler: async (req) => {
              const text = req.params.text
              // Plain words only (this test has no query builder at hand, so nothing needs quoting).
              if (typeof text !== 'string' || !/^[A-Za-z0-9 .,!?-]{1,200}$/.test(text)) {
                throw kernelErrors.rest_invalid_param({ params: { text: 'text must be 1 to 200 letters, digits, spaces or .,!?-' } }, 'Invalid parameter(s): text')
              }
              const [row] = await store.execute(`insert into throwaway_notes (text, author) values ('${text}', ${Number(req.user.id)}) returning id, text`)
              return row
            }
          })
        ]
      })])
    }
  })
}

t.test('a package written here is everywhere once its namespace is in the profile', async (t) => {
  const folder = migrationsFolder()
  t.teardown(() => { rmSync(folder, { recursive: true, force: true }) })
  const store = await openTestStore({ migrate: 'later' })
  t.teardown(() => store.close())
  // The one edit outside the package: its namespace in a profile's list (gatewayApp adds it to profile A's).
  const h = await gatewayApp({ store, packages: [notesPackage(folder)] })
  const { app } = h
  t.teardown(h.close)
  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url })
    return JSON.parse(res.body)
  }

  t.same(await store.execute('select count(*)::int as n from drizzle.__migrations_cms_notes'), [{ n: 1 }], 'its table, in its own migrations table')
  const index = await get('/cms-json/')
  t.ok(index.namespaces.includes(NS), 'GET / lists the namespace')
  t.same(index.routes[`/${NS}/notes`].methods, ['GET', 'POST'], 'and its routes')
  t.same(index.routes[`/${NS}/notes`].endpoints.map((e: { allow_batch?: unknown }) => e.allow_batch), [{ v1: true }, { v1: true }], 'batch eligibility shown')
  const root = await get(`/cms-json/${NS}`)
  t.same([root.namespace, Object.keys(root.routes)], [NS, [`/${NS}`, `/${NS}/notes`]], 'its namespace root')
  const doc = await get('/openapi.json')
  t.ok(doc.paths[`/cms-json/${NS}/notes`]?.get !== undefined && doc.paths[`/cms-json/${NS}/notes`]?.post !== undefined, 'OpenAPI')

  const author = await createCaller(store, 'author')
  const batch = await app.inject({
    method: 'POST',
    url: '/cms-json/batch/v1',
    headers: { ...author.headers, 'content-type': 'application/json' },
    payload: JSON.stringify({ requests: [{ path: `/${NS}/notes`, body: { text: 'from a batch' } }, { path: `/${NS}/notes`, body: { text: '' } }] })
  })
  const responses = JSON.parse(batch.body).responses
  t.same([batch.statusCode, responses[0].status, responses[0].body.text, responses[1].status], [207, 200, 'from a batch', 400], 'batch runs its routes')

  t.test('the permission matrix probes its routes with their declarations', async (t) => {
    const targets = targetsOf(app).filter((target) => target.key.includes(`/${NS}`))
    t.same(targets.map((target) => target.key).sort(), [`GET /${NS}`, `GET /${NS}/notes`, `POST /${NS}/notes`])
    t.equal(await checkPermissions(t, h, { only: (target) => target.key.includes(`/${NS}`) }), 3, 'one case each')
  })

  t.test('the fuzz harness reaches its routes', async (t) => {
    const targets = targetsOf(app).filter((target) => target.key.includes(`/${NS}`))
    const stats = await runFuzz({
      app,
      targets,
      runs: 150,
      seed: 4242,
      callers: async () => [
        { name: 'anonymous', headers: anonymous.headers },
        { name: 'administrator', headers: (await createCaller(store, 'administrator')).headers }
      ]
    })
    t.equal(stats.requests, 150)
    t.equal(stats.failures, 0, [...stats.problems.values()].map((p) => p.example.problem).join('; '))
  })
})

t.test("a namespace service serves only its namespace, and has every package's contributions (their tables too)", async (t) => {
  const folder = migrationsFolder()
  t.teardown(() => { rmSync(folder, { recursive: true, force: true }) })
  const present = async (store: Awaited<ReturnType<typeof openTestStore>>, table: string): Promise<boolean> =>
    (await store.execute<{ present: boolean }>(`select to_regclass('${table}') is not null as present`))[0]!.present

  const store = await openTestStore({ migrate: false })
  t.teardown(() => store.close())
  const { app, close } = await gatewayApp({ env: { CMS_NAMESPACES: NS }, store, packages: [notesPackage(folder)] })
  t.teardown(close)
  t.ok(app.platform.packages().includes('@cms/notes') && app.platform.packages().includes('@cms/core'), 'the notes package and the core it depends on')
  t.equal(await present(store, 'public.throwaway_notes'), true)
  t.equal(await present(store, 'public.posts'), true, 'its dependency (the core) migrated')
  // Since the contribute/serve split (#28 item 3): what a package adds to the core, its tables
  // included, is in every process of the profile, so a post written here keeps the builder's meta.
  t.equal(await present(store, 'public.nps_surveys'), true, "the builder's tables are made here too")
  const builder = await app.inject({ url: '/cms-json/builder/v1/globals' })
  t.equal(builder.statusCode, 404, 'but its routes are not served here')
})
