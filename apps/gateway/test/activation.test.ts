/**
 * Activation decides what is served (issue 32 item 1): a deactivated
 * plugin's namespaces answer `404 rest_no_route` and leave the index, the
 * namespace roots, OpenAPI and batch, in every app on the database, at once
 * (the statuses are cached by the commit horizon); reactivating brings them
 * back with their data. Its meta keys leave post answers and the schemas
 * (index, OPTIONS, OpenAPI) with it and come back with their stored values.
 * The active theme decides theme-a/v1 (profile A) and
 * theme-helper/v1 (profile B). Two apps share one database: on PostgreSQL
 * each has its own connection pool (as two processes), on PGlite they share
 * the in-memory database.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { createCaller } from '@cms/core/testing'
import { call } from '@cms/rest/testing'
import { migrateTestStore, openTestStore } from '@cms/store/testing'
import { packageRegistry } from '@cms/registry'
import { buildApp } from '../src/app.js'
import { loadSettings } from '../src/settings.js'
import { BASE, gatewayApp, getJson, twoStores } from './helpers.js'

/** A content directory both apps use, holding a second theme (`dark`) beside the seeded packages. */
async function sharedContent (t: Test): Promise<string> {
  const content = await mkdtemp(join(tmpdir(), 'cms-activation-'))
  t.teardown(async () => { await rm(content, { recursive: true, force: true }) })
  await mkdir(join(content, 'themes', 'dark'), { recursive: true })
  await writeFile(join(content, 'themes', 'dark', 'manifest.json'), JSON.stringify({ name: 'Dark', version: '1.0.0' }))
  return content
}

/** What a client sees of a namespace: its root, one route, OPTIONS, the index, OpenAPI, a batch. */
async function seen (app: FastifyInstance, as: Awaited<ReturnType<typeof createCaller>>, ns: string, path: string, write: { method: string, path: string } = { method: 'POST', path }): Promise<Record<string, unknown>> {
  const root = await call(app, 'GET', `/${ns}`, { as })
  const one = await call(app, 'GET', path, { as })
  const options = await call(app, 'OPTIONS', path, { as })
  const index = await call(app, 'GET', '/', { as })
  const anonymousIndex = await call(app, 'GET', '/')
  const openapi = await getJson(app, '/openapi.json')
  const batch = await call(app, 'POST', '/batch/v1', { as, body: { requests: [write] } })
  return {
    root: [root.status, root.body?.code ?? root.body?.namespace],
    route: [one.status, one.status === 404 ? one.body.code : 'served'],
    options: [options.status, Array.isArray(options.body) ? 'empty' : 'entry'],
    listed: index.body.namespaces.includes(ns),
    listedAnonymously: anonymousIndex.body.namespaces.includes(ns),
    indexRoutes: Object.keys(index.body.routes).some((r) => r.startsWith(`/${ns}`)),
    openapi: Object.keys(openapi.body.paths).some((p) => p.startsWith(`/cms-json/${ns}/`)),
    batch: batch.body.responses[0].body.code === 'rest_no_route' ? 'no route' : 'routed'
  }
}

/**
 * Where a client sees the page builder's meta key `_builder_data`: a post's
 * `meta` (edit context), the posts route's OPTIONS schema and its index
 * arguments, OpenAPI; and whether an SEO key (another package's) is still there.
 */
async function builderMeta (app: FastifyInstance, as: Awaited<ReturnType<typeof createCaller>>, post: number): Promise<Record<string, unknown>> {
  const read = await call(app, 'GET', `/cms/v2/posts/${post}?context=edit`, { as })
  const options = await call(app, 'OPTIONS', '/cms/v2/posts', { as })
  const index = await call(app, 'GET', '/cms/v2', { as })
  const openapi = JSON.stringify((await getJson(app, '/openapi.json')).body)
  const argsMeta = index.body.routes['/cms/v2/posts'].endpoints.find((e: { methods: string[] }) => e.methods.includes('POST')).args.meta.properties
  return {
    post: [read.status, read.body.meta._builder_edit_mode ?? 'absent', '_seo_title' in read.body.meta],
    options: '_builder_data' in options.body.schema.properties.meta.properties,
    index: '_builder_data' in argsMeta,
    openapi: openapi.includes('"_builder_data"'),
    // The keyword marking contributed properties is never shown.
    marker: [openapi, JSON.stringify(options.body), JSON.stringify(index.body)].some((text) => text.includes('x-cms-package'))
  }
}

/** A write the batch route sends to the page builder (answered, whatever its outcome, while the route exists). */
const CACHE = { method: 'DELETE', path: '/builder/v1/cache' }

const served = (ns: string): Record<string, unknown> => ({
  root: [200, ns], route: [200, 'served'], options: [200, 'entry'], listed: true, listedAnonymously: true, indexRoutes: true, openapi: true, batch: 'routed'
})
const gone = {
  root: [404, 'rest_no_route'], route: [404, 'rest_no_route'], options: [200, 'empty'], listed: false, listedAnonymously: false, indexRoutes: false, openapi: false, batch: 'no route'
}

t.test('profile B: deactivating the page builder in one app stops it in both; activating brings it back', async (t) => {
  const [s1, s2] = await twoStores(t)
  const content = await sharedContent(t)
  const one = await gatewayApp({ env: { CMS_DEPLOYMENT: 'B', CMS_CONTENT_DIR: content }, store: s1 })
  t.teardown(one.close)
  const two = await gatewayApp({ env: { CMS_DEPLOYMENT: 'B', CMS_CONTENT_DIR: content }, store: s2 })
  t.teardown(two.close)
  const admin = await createCaller(s1, 'administrator')

  const colors = await call(two.app, 'GET', '/builder/v1/globals/colors', { as: admin })
  t.equal(colors.status, 200)
  t.same(await seen(two.app, admin, 'builder/v1', '/builder/v1/globals/colors', CACHE), served('builder/v1'), 'served before')
  const post = await call(one.app, 'POST', '/cms/v2/posts', { as: admin, body: { title: 'Built', status: 'publish', meta: { _builder_edit_mode: 'builder', _builder_data: '[]' } } })
  t.equal(post.status, 201)
  const metaShown = { post: [200, 'builder', true], options: true, index: true, openapi: true, marker: false }
  t.same(await builderMeta(two.app, admin, post.body.id), metaShown, 'its meta shown before')

  const off = await call(one.app, 'POST', '/builder-one/v1/plugins/builder/deactivate', { as: admin })
  t.equal(off.status, 200)
  t.equal(off.body.status, 'inactive')
  for (const [name, h] of [['the app that deactivated', one], ['the other app', two]] as const) {
    t.same(await seen(h.app, admin, 'builder/v1', '/builder/v1/globals/colors', CACHE), gone, `${name}: builder/v1 is gone`)
    t.same((await call(h.app, 'GET', '/builder-ai/v1', { as: admin })).status, 404, `${name}: the package's other namespaces too`)
  }
  for (const [name, h] of [['the app that deactivated', one], ['the other app', two]] as const) {
    t.same(await builderMeta(h.app, admin, post.body.id), { post: [200, 'absent', true], options: false, index: false, openapi: false, marker: false }, `${name}: its meta leaves the answers and schemas (the SEO package's stays)`)
  }
  // A write of its key is a write of an unregistered key: ignored, the stored value kept.
  const write = await call(two.app, 'POST', `/cms/v2/posts/${post.body.id}`, { as: admin, body: { title: 'Built again', meta: { _builder_edit_mode: '' } } })
  t.same([write.status, write.body.title.raw, '_builder_edit_mode' in write.body.meta], [200, 'Built again', false], 'its meta key written while off: ignored')
  t.same(await seen(two.app, admin, 'hdrftr/v1', '/hdrftr/v1/widgets', { method: 'POST', path: '/hdrftr/v1/email-webhook' }), served('hdrftr/v1'), 'another plugin is still served')
  t.equal((await call(two.app, 'GET', '/builder-one/v1/plugins', { as: admin })).status, 200, 'the management routes still answer')

  const on = await call(two.app, 'POST', '/builder-one/v1/plugins/builder/activate', { as: admin })
  t.equal(on.status, 200)
  t.same(await seen(one.app, admin, 'builder/v1', '/builder/v1/globals/colors', CACHE), served('builder/v1'), 'back in the first app')
  t.same((await call(one.app, 'GET', '/builder/v1/globals/colors', { as: admin })).body, colors.body, 'its data kept')
  t.same(await builderMeta(one.app, admin, post.body.id), metaShown, 'its meta back, the value written before deactivation kept')
  t.equal((await call(one.app, 'GET', `/cms/v2/posts/${post.body.id}?context=edit`, { as: admin })).body.meta._builder_data, '[]')

  // The theme: theme-helper/v1 is served while theme-a is the active theme.
  t.equal((await call(one.app, 'POST', '/builder-one/v1/themes/dark/activate', { as: admin })).status, 200)
  t.same(await seen(two.app, admin, 'theme-helper/v1', '/theme-helper/v1'), gone, 'another theme: theme-helper/v1 is gone')
  t.equal((await call(two.app, 'POST', '/builder-one/v1/themes/theme-a/activate', { as: admin })).status, 200)
  t.equal((await call(one.app, 'GET', '/theme-helper/v1', { as: admin })).status, 200, 'theme-a again: back')
})

t.test('profile A: a theme switch moves theme-a/v1; package files follow activation', async (t) => {
  const content = await sharedContent(t)
  const h = await gatewayApp({ env: { CMS_DEPLOYMENT: 'A', CMS_CONTENT_DIR: content } })
  t.teardown(h.close)
  const admin = await createCaller(h.store, 'administrator')
  const registry = h.app.platform.service(packageRegistry)!
  const actor = { userId: 0 }

  t.equal((await call(h.app, 'GET', '/theme-a/v1', { as: admin })).status, 200)
  t.equal((await h.app.inject({ method: 'GET', url: '/cms-content/themes/theme-a/style.css' })).statusCode, 200)
  await registry.activate('theme', 'dark', { actor })
  const after = await call(h.app, 'GET', '/theme-a/v1', { as: admin })
  t.same([after.status, after.body.code], [404, 'rest_no_route'], 'another theme active: theme-a/v1 is gone')
  t.notOk((await call(h.app, 'GET', '/')).body.namespaces.includes('theme-a/v1'))
  t.equal((await h.app.inject({ method: 'GET', url: '/cms-content/themes/theme-a/style.css' })).statusCode, 404, 'its files too')
  await registry.activate('theme', 'theme-a', { actor })
  t.equal((await call(h.app, 'GET', '/theme-a/v1', { as: admin })).status, 200, 'back')

  // A plugin deactivated through the registry: its routes and its files.
  await registry.deactivate('plugin', 'rollback', { actor })
  t.equal((await call(h.app, 'GET', '/rollback/v1', { as: admin })).status, 404)
  t.equal((await h.app.inject({ method: 'GET', url: '/cms-content/plugins/rollback/assets/style.css' })).statusCode, 404)
  await registry.activate('plugin', 'rollback', { actor })
  t.equal((await call(h.app, 'GET', '/rollback/v1', { as: admin })).status, 200)
  t.equal((await h.app.inject({ method: 'GET', url: '/cms-content/plugins/rollback/assets/style.css' })).statusCode, 200)
})

t.test('a process whose packages need no registry still honours activation: the registry is composed wherever a switched package is', async (t) => {
  // A profile of the page builder alone: no package of it depends on @cms/registry.
  const content = await sharedContent(t)
  const store = await openTestStore({ migrate: 'later' })
  t.teardown(async () => { await store.close() })
  const settings = loadSettings({ CMS_BASE_URL: BASE, LOG_LEVEL: 'silent', CMS_DATA_DIR: '/nonexistent-not-used', CMS_CONTENT_DIR: content })
  const app = await buildApp(settings, { store, logger: false, jobs: false, migrate: migrateTestStore, profile: { name: 'builder-only', namespaces: ['builder/v1', 'builder/v1/documents'] } })
  t.teardown(async () => { await app.close() })
  await app.ready()
  t.ok(app.platform.packages().includes('@cms/registry'), 'the registry is composed')
  const admin = await createCaller(store, 'administrator')
  t.equal((await call(app, 'GET', '/builder/v1/globals/colors', { as: admin })).status, 200)
  // What another process (or the CLI) stored: the builder deactivated.
  await app.platform.service(packageRegistry)!.deactivate('plugin', 'builder', { actor: { userId: 0 } })
  const off = await call(app, 'GET', '/builder/v1/globals/colors', { as: admin })
  t.same([off.status, off.body.code], [404, 'rest_no_route'], 'its routes are gone here too')
})
