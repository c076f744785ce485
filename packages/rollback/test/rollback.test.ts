/**
 * rollback/v1 through HTTP (seo-rollback-assistant-addons.md §2): a full
 * rollback of a plugin from 2.0.0 to 1.0.0 in six calls (files changing on
 * disk, the site in maintenance for anonymous readers only, an archive of
 * 2.0.0 listed and downloaded byte for byte, with Range and a strong ETag),
 * every failure path leaving the installed version working and maintenance
 * off, profile B's sorted archives, and who may call what.
 */
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { definePackage } from '@cms/core'
import { checkPermissions, scratchDir, testApp, type TestApp, type TestCaller } from '@cms/testing'
import { packageRegistry, registryPackage, type PackageRegistry } from '@cms/registry'
import { rollbackPackage } from '../src/index.js'
import { makeZip, packageZip, renameInZip, sourceDir } from '../../registry/test/zips.js'

/** Gives the test the registry the rollback package uses. */
function probe (): { pkg: ReturnType<typeof definePackage>, registry: () => PackageRegistry } {
  let registry: PackageRegistry | undefined
  const pkg = definePackage({ name: 'probe', dependencies: ['@cms/registry'], namespaces: ['probe/v1'], contribute (api) { registry = api.require(packageRegistry) } })
  return { pkg, registry: () => registry! }
}

async function setup (t: Test, namespaceOptions: Record<string, Record<string, unknown>> = {}): Promise<{ h: TestApp, content: string, registry: PackageRegistry, admin: TestCaller, editor: TestCaller }> {
  const content = await scratchDir('rollback')
  // Installed before the start: the slug enum of process-rollback is read from the content directory then.
  await mkdir(join(content, 'plugins/extra'), { recursive: true })
  await writeFile(join(content, 'plugins/extra/manifest.json'), JSON.stringify({ name: 'Extra', version: '2.0.0', slug: 'extra' }))
  await writeFile(join(content, 'plugins/extra/version.txt'), '2.0.0')
  const manifest = (slug: string, version: string): { name: string, data: string } => ({ name: `${slug}/manifest.json`, data: JSON.stringify({ name: 'Extra', version, slug }) })
  const source = await sourceDir([
    { type: 'plugin', slug: 'extra', version: '1.0.0', zip: await packageZip('extra', '1.0.0', { 'old.txt': 'only in 1.0.0' }) },
    { type: 'plugin', slug: 'extra', version: '0.9.0', zip: (await packageZip('extra', '0.9.0')).subarray(0, 120) },
    { type: 'plugin', slug: 'extra', version: '0.8.0', zip: renameInZip(await makeZip([manifest('extra', '0.8.0'), { name: 'extra/xx/evil.txt', data: 'x' }]), 'extra/xx/evil.txt', 'extra/../evil.txt') },
    { type: 'plugin', slug: 'extra', version: '0.7.0', zip: await makeZip([manifest('extra', '0.7.0'), { name: 'extra/zeros.bin', data: Buffer.alloc(3 * 1024 * 1024) }]) },
    { type: 'plugin', slug: 'extra', version: '0.6.0', zip: await packageZip('other', '0.6.0') }
  ])
  const p = probe()
  const h = await testApp({
    packages: [registryPackage, rollbackPackage, p.pkg],
    namespaces: ['cms/v2', 'rollback/v1', 'probe/v1'],
    namespaceOptions,
    contentDir: content,
    env: { CMS_PACKAGE_SOURCE: source, CMS_PACKAGE_MAX_BYTES: String(1024 * 1024) }
  })
  t.teardown(h.close)
  const registry = p.registry()
  await registry.activate('plugin', 'extra', { actor: { userId: 0 } })
  return { h, content, registry, admin: await h.caller('administrator'), editor: await h.caller('editor') }
}

t.test('profile A: a rollback, its archives, its failures', async (t) => {
  const { h, content, registry, admin, editor } = await setup(t)
  const step = async (s: string, version = '1.0.0', extra: Record<string, unknown> = {}): Promise<any> =>
    await h.call('POST', '/rollback/v1/process-rollback', { as: admin, body: { type: 'plugin', slug: 'extra', version, step: s, ...extra } })
  const installed = async (): Promise<string> => await readFile(join(content, 'plugins/extra/version.txt'), 'utf8')
  const maintenanceOn = async (): Promise<boolean> => (await h.call('GET', '/cms/v2/posts')).status === 503

  t.test('the index: the slug enum from the registry, the steps', async (t) => {
    const root = await h.call('GET', '/rollback/v1')
    t.same(Object.keys(root.body.routes).sort(), ['/rollback/v1', '/rollback/v1/archives', '/rollback/v1/archives/(?P<id>[\\d]+)', '/rollback/v1/archives/(?P<id>[\\d]+)/download', '/rollback/v1/fetch-info', '/rollback/v1/process-rollback', '/rollback/v1/rollback-steps'])
    const args = root.body.routes['/rollback/v1/process-rollback'].endpoints[0].args
    t.same(args.slug.enum, ['addons', 'builder', 'extra', 'hdrftr', 'rollback', 'seo', 'theme-a'], 'the installed plugins and themes')
    t.same(args.step.enum, ['maintenance-mode', 'download-asset', 'backup-asset', 'validate-package', 'replace-asset', 'cleanup'])
    const steps = await h.call('GET', '/rollback/v1/rollback-steps', { as: admin })
    t.same(steps.body.steps.map((s: any) => s.id), args.step.enum)
    t.equal(steps.body.steps[0].rollbackProcessingMessage, 'Enabling maintenance mode…')
  })

  t.test('fetch-info', async (t) => {
    const info = await h.call('GET', '/rollback/v1/fetch-info', { as: admin, query: { type: 'plugin', slug: 'extra' } })
    t.equal(info.status, 200)
    t.same([info.body.success, info.body.data.currentVersion, info.body.data.hasVersions, info.body.data.isPro], [true, '2.0.0', true, false])
    t.same(Object.keys(info.body.data.versions), ['0.6.0', '0.7.0', '0.8.0', '0.9.0', '1.0.0'])
    t.same(info.body.data.versions['1.0.0'], { file: 'extra.1.0.0.zip', downloadUrl: null, released: null }, 'a directory source has no address to show')
    const missing = await h.call('GET', '/rollback/v1/fetch-info', { as: admin, query: { type: 'plugin', slug: 'nothing' } })
    t.same([missing.status, missing.body.code], [404, 'asset_not_found'])
    t.same((await h.call('GET', '/rollback/v1/fetch-info', { as: editor, query: { type: 'plugin', slug: 'extra' } })).status, 403)
    t.same((await h.call('GET', '/rollback/v1/fetch-info', { query: { type: 'plugin', slug: 'extra' } })).status, 401)
  })

  t.test('validate or replace with nothing downloaded: 409, nothing changed', async (t) => {
    for (const s of ['validate-package', 'replace-asset']) {
      const res = await step(s)
      t.same([res.status, res.body.code], [409, 'rollback_package_missing'], s)
    }
    t.equal(await installed(), '2.0.0')
    t.equal((await step('cleanup')).status, 200)
  })

  t.test('the six steps: 2.0.0 to 1.0.0', async (t) => {
    const m = await step('maintenance-mode')
    t.same(m.body, { success: true, data: { assetType: 'plugin', assetSlug: 'extra', assetVersion: '1.0.0', assetName: 'Extra', meta: { maintenance_status: 'enabled' } }, message: 'Maintenance mode enabled.' })
    const anon = await h.call('GET', '/cms/v2/posts')
    t.same([anon.status, anon.body.code, anon.body.data.status], [503, 'rest_maintenance', 503], 'anonymous content reads wait')
    t.ok(Number(anon.headers['retry-after']) > 0 && Number(anon.headers['retry-after']) <= 600)
    t.equal((await h.call('GET', '/cms/v2/posts', { as: editor })).status, 200, 'a signed-in editor is not locked out')
    t.equal((await h.call('GET', '/rollback/v1')).status, 200, 'the index is not a content read')

    const other = await step('maintenance-mode', '0.9.0')
    t.same([other.status, other.body.code], [409, 'rollback_in_progress'], 'one rollback per package')
    t.ok(await maintenanceOn(), 'the running rollback keeps its maintenance')

    const d = await step('download-asset')
    t.same([d.status, d.body.success, d.body.message], [200, true, 'Downloaded version 1.0.0.'])
    const b = await step('backup-asset')
    t.same([b.status, b.body.message], [200, 'Archive created successfully.'])
    t.equal((await step('backup-asset')).body.message, 'Archive already exists for this version.')
    t.equal((await step('validate-package')).body.data.meta.validation_status, 'passed')
    t.equal(await installed(), '2.0.0', 'nothing replaced yet')
    const r = await step('replace-asset')
    t.same([r.status, r.body.data.meta.previous_version, r.body.data.meta.current_version], [200, '2.0.0', '1.0.0'])
    t.equal(await installed(), '1.0.0', 'the files on disk changed')
    t.equal(await readFile(join(content, 'plugins/extra/old.txt'), 'utf8'), 'only in 1.0.0')
    t.same([(await registry.get('plugin', 'extra'))!.status], ['active'], 'still active')
    t.notOk(await maintenanceOn(), 'maintenance lifted once the files are in place')
    const c = await step('cleanup')
    t.same([c.status, c.body.data.meta.cleaned_items], [200, { maintenance_file: false, package_file: true, transients: true }])
    t.same(await readdir(join(content, '.registry/tmp')), [], 'no scratch files left')
    const log = (await registry.log.list()).entries.find((e) => e.operation === 'rollback')!
    t.same([log.fromVersion, log.toVersion, log.userId, log.outcome], ['2.0.0', '1.0.0', admin.id, 'success'])
  })

  t.test('the archive of 2.0.0: listed, downloaded byte for byte, ranges, deleted', async (t) => {
    const list = await h.call('GET', '/rollback/v1/archives', { as: admin })
    t.equal(list.status, 200)
    t.equal(list.headers['x-cms-total'], '1')
    t.equal(list.headers['x-cms-totalpages'], '1')
    t.same([list.body.total, list.body.pages], [1, 1])
    const item = list.body.items[0]
    t.match(item, { type: 'plugin', name: 'Extra', slug: 'extra', version: '2.0.0', user: { id: admin.id }, file_exists: true, asset_name: 'extra' })
    t.match(item.created_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
    t.match(item.download_url, new RegExp(`rest_route=/rollback/v1/archives/${item.id as number}/download$`))
    const [row] = await h.store.execute<{ file: string }>(`select file from rollback_archives where id = ${Number(item.id)}`)
    const archived = await readFile(join(content, row!.file))
    t.equal(item.file_size, archived.length)

    const res = await h.app.inject({ method: 'GET', url: `/cms-json/rollback/v1/archives/${item.id as number}/download`, headers: admin.headers })
    t.equal(res.statusCode, 200)
    t.ok(res.rawPayload.equals(archived), 'byte-equal to the archived zip')
    t.equal(res.headers['content-type'], 'application/zip')
    t.equal(res.headers['content-disposition'], 'attachment; filename="extra-2.0.0.zip"')
    t.equal(Number(res.headers['content-length']), archived.length)
    const etag = res.headers.etag as string
    t.match(etag, /^"[0-9a-f]{64}"$/, 'a strong ETag')
    t.equal((await h.app.inject({ method: 'GET', url: `/cms-json/rollback/v1/archives/${item.id as number}/download`, headers: { ...admin.headers, 'if-none-match': etag } })).statusCode, 304)
    const part = await h.app.inject({ method: 'GET', url: `/cms-json/rollback/v1/archives/${item.id as number}/download`, headers: { ...admin.headers, range: 'bytes=10-29' } })
    t.same([part.statusCode, part.headers['content-range'], part.rawPayload.length], [206, `bytes 10-29/${archived.length}`, 20])
    t.ok(part.rawPayload.equals(archived.subarray(10, 30)))
    const tail = await h.app.inject({ method: 'GET', url: `/cms-json/rollback/v1/archives/${item.id as number}/download`, headers: { ...admin.headers, range: 'bytes=-5' } })
    t.ok(tail.rawPayload.equals(archived.subarray(archived.length - 5)))
    const bad = await h.app.inject({ method: 'GET', url: `/cms-json/rollback/v1/archives/${item.id as number}/download`, headers: { ...admin.headers, range: `bytes=${archived.length}-` } })
    t.same([bad.statusCode, JSON.parse(bad.body).code, JSON.parse(bad.body).data.status], [416, 'rest_range_not_satisfiable', 416])
    t.match(bad.headers['content-range'], /^bytes \*\/\d+$/, 'the 416 names the length')
    t.equal((await h.call('GET', `/rollback/v1/archives/${item.id as number}/download`, { as: editor })).status, 403)
    t.equal((await h.call('GET', `/rollback/v1/archives/${item.id as number}/download`)).status, 401)

    // Rolling forward again uses the archive: no source needed for 2.0.0.
    for (const s of ['maintenance-mode', 'download-asset', 'backup-asset', 'validate-package', 'replace-asset', 'cleanup']) {
      const r = await step(s, '2.0.0')
      t.equal(r.status, 200, `${s}: ${r.body.message as string}`)
      if (s === 'download-asset') t.equal(r.body.data.meta.source, 'archive')
    }
    t.equal(await installed(), '2.0.0')
    const two = await h.call('GET', '/rollback/v1/archives', { as: admin, query: { type: 'plugin', per_page: 1 } })
    t.same([two.body.total, two.body.pages, two.body.items.length], [2, 2, 1])
    t.match(two.headers.link, /rel="next"/)
    t.equal((await h.call('GET', '/rollback/v1/archives', { as: admin, query: { page: 3, per_page: 1 } })).body.code, 'rollback_invalid_page_number')
    t.same((await h.call('GET', '/rollback/v1/archives', { as: admin, query: { type: 'theme' } })).body, { items: [], total: 0, pages: 0 })

    const del = await h.call('DELETE', `/rollback/v1/archives/${item.id as number}`, { as: admin })
    t.same([del.status, del.body], [200, { success: true, message: 'Archive deleted successfully.' }])
    t.notOk(existsSync(join(content, row!.file)), 'the file is gone')
    for (const [method, path] of [['DELETE', `/rollback/v1/archives/${item.id as number}`], ['GET', `/rollback/v1/archives/${item.id as number}/download`]] as const) {
      const gone = await h.call(method, path, { as: admin })
      t.same([gone.status, gone.body.code], [404, 'archive_not_found'], `${method} ${path}`)
    }
    t.equal((await h.call('GET', '/rollback/v1/archives', { as: editor })).status, 403)
  })

  t.test('failures leave the installed version working and maintenance off', async (t) => {
    const cases: Array<[string, string, string, number, string]> = [
      ['a version the source does not offer', '0.1.0', 'download-asset', 404, 'package_version_not_found'],
      ['a corrupt zip', '0.9.0', 'validate-package', 400, 'rest_invalid_package'],
      ['a traversal entry', '0.8.0', 'validate-package', 400, 'rest_invalid_package'],
      ['a zip bomb', '0.7.0', 'validate-package', 400, 'rest_invalid_package'],
      ['another package\'s zip', '0.6.0', 'validate-package', 400, 'rest_invalid_package'],
      ['a corrupt zip replaced without validation', '0.9.0', 'replace-asset', 400, 'rest_invalid_package']
    ]
    for (const [what, version, failing, status, code] of cases) {
      for (const s of ['maintenance-mode', 'download-asset', 'backup-asset', 'validate-package', 'replace-asset']) {
        if (s === 'validate-package' && failing === 'replace-asset') continue
        const res = await step(s, version)
        if (s === failing) {
          t.same([res.status, res.body.code], [status, code], `${what}: ${s} refused`)
          break
        }
        t.equal(res.status, 200, `${what}: ${s}`)
      }
      t.equal(await installed(), '2.0.0', `${what}: the installed version is intact`)
      t.same([(await registry.get('plugin', 'extra'))!.status], ['active'])
      t.notOk(await maintenanceOn(), `${what}: maintenance is off`)
      t.notOk(existsSync(join(content, 'evil.txt')))
      const after = await step('replace-asset', version)
      t.same([after.status, after.body.code], [409, 'rollback_package_missing'], `${what}: nothing left to replace with`)
      t.equal((await step('cleanup', version)).status, 200)
    }
    // Stopped between replace and cleanup: the new version works, maintenance is off, the next rollback may start once cleaned.
    for (const s of ['maintenance-mode', 'download-asset', 'validate-package', 'replace-asset']) t.equal((await step(s)).status, 200, s)
    t.equal(await installed(), '1.0.0')
    t.notOk(await maintenanceOn())
    t.equal((await step('maintenance-mode', '2.0.0')).body.code, 'rollback_in_progress', 'its state waits for cleanup (or the hour)')
    await h.store.execute("update rollback_state set expires_at = now() - interval '1 minute'")
    t.equal((await step('maintenance-mode', '2.0.0')).status, 200, 'an abandoned rollback expires')
    t.equal((await step('cleanup', '2.0.0')).status, 200)
    t.notOk(await maintenanceOn())
  })

  t.test('a rollback whose client went away: its maintenance ends with its lease, and its state goes', async (t) => {
    t.equal((await step('download-asset')).status, 200)
    const scratch = (await h.store.execute<{ data: { scratch: string } }>("select data from rollback_state where slug = 'extra'"))[0]!.data.scratch
    t.ok(existsSync(scratch), 'the rollback has its scratch directory')
    // Five seconds of the hour left when maintenance mode begins.
    await h.store.execute("update rollback_state set expires_at = now() + interval '5 seconds'")
    t.same((await step('maintenance-mode')).body.data.meta, { maintenance_status: 'enabled' })
    t.ok(await maintenanceOn(), 'maintenance on')
    // No further rollback request: anonymous reads alone see it lifted (the wait only ends a hang; the window is 5 s).
    const waitFor = async (check: () => Promise<boolean>): Promise<boolean> => {
      for (let i = 0; i < 600 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 100))
      return await check()
    }
    t.ok(await waitFor(async () => !(await maintenanceOn())), 'maintenance ends with the lease')
    // The next reads of maintenance (an anonymous read each) find the window ended: its rollback's state goes.
    t.ok(await waitFor(async () => !(await maintenanceOn()) && (await h.store.execute('select 1 from rollback_state')).length === 0), 'the expired state is removed')
    t.notOk(existsSync(scratch), 'with its scratch directory')
    t.same(await readdir(join(content, '.maintenance')), [], 'and its maintenance file')
  })

  t.test('arguments and permissions', async (t) => {
    const bad = await h.call('POST', '/rollback/v1/process-rollback', { as: admin, body: { type: 'plugin', slug: 'unknown', version: '1', step: 'cleanup' } })
    t.same([bad.status, bad.body.code], [400, 'rest_invalid_param'])
    const editorTry = await h.call('POST', '/rollback/v1/process-rollback', { as: editor, body: { type: 'plugin', slug: 'extra', version: '1.0.0', step: 'maintenance-mode' } })
    t.same([editorTry.status, editorTry.body.code], [403, 'rest_forbidden'])
    const anonTry = await h.call('POST', '/rollback/v1/process-rollback', { body: { type: 'theme', slug: 'theme-a', version: '1.0.0', step: 'cleanup' } })
    t.same([anonTry.status, anonTry.body.code], [401, 'rest_forbidden'])
  })
})

t.test('profile B: archives sorted by orderby and order; the process routes are not served', async (t) => {
  const { h, registry, admin } = await setup(t, { 'rollback/v1': { archiveSorting: true } })
  const root = await h.call('GET', '/rollback/v1')
  t.same(Object.keys(root.body.routes).sort(), ['/rollback/v1', '/rollback/v1/archives', '/rollback/v1/archives/(?P<id>[\\d]+)', '/rollback/v1/archives/(?P<id>[\\d]+)/download'])
  const args = root.body.routes['/rollback/v1/archives'].endpoints[0].args
  t.same([args.orderby.enum, args.orderby.default, args.order.enum, args.order.default], [['name', 'version', 'user_id', 'created_at', 'file_size'], 'created_at', ['ASC', 'DESC'], 'DESC'])
  // Three archives with different names, versions, users, sizes and times.
  const other = await h.caller('administrator')
  await h.store.execute(`insert into rollback_archives (type, slug, name, version, user_id, file, file_size, sha256, created_at) values
    ('plugin', 'b', 'Bravo', '1.10.0', ${admin.id}, 'rollback-archives/none-1.zip', 300, 'x', now() - interval '3 hours'),
    ('plugin', 'a', 'Alpha', '1.2.0', ${other.id}, 'rollback-archives/none-2.zip', 100, 'x', now() - interval '1 hour'),
    ('theme', 'c', 'Charlie', '2.0.0', ${admin.id}, 'rollback-archives/none-3.zip', 200, 'x', now() - interval '2 hours')`)
  const names = async (query: Record<string, string>): Promise<string[]> => (await h.call('GET', '/rollback/v1/archives', { as: admin, query })).body.items.map((i: any) => i.name)
  t.same(await names({}), ['Alpha', 'Charlie', 'Bravo'], 'newest first by default')
  t.same(await names({ orderby: 'created_at', order: 'ASC' }), ['Bravo', 'Charlie', 'Alpha'])
  t.same(await names({ orderby: 'name', order: 'ASC' }), ['Alpha', 'Bravo', 'Charlie'])
  t.same(await names({ orderby: 'file_size', order: 'DESC' }), ['Bravo', 'Charlie', 'Alpha'])
  t.same(await names({ orderby: 'version', order: 'DESC' }), ['Charlie', 'Alpha', 'Bravo'], 'versions compared as text, as the real product sorts the column')
  t.same((await names({ orderby: 'user_id', order: 'ASC' })).slice(-1), ['Alpha'])
  t.same(await names({ type: 'theme' }), ['Charlie'])
  const bad = await h.call('GET', '/rollback/v1/archives', { as: admin, query: { orderby: 'slug' } })
  t.same([bad.status, bad.body.code], [400, 'rest_invalid_param'])
  const item = (await h.call('GET', '/rollback/v1/archives', { as: admin })).body.items[0]
  t.same([item.file_exists, item.download_url], [false, null], 'a missing file has no download URL')
  t.equal((await h.call('POST', '/rollback/v1/process-rollback', { as: admin, body: { type: 'plugin', slug: 'extra', version: '1.0.0', step: 'cleanup' } })).status, 404)
  t.ok(registry)
})

t.test('profile B: an upgrade keeps the replaced version as an archive; listed, downloaded byte-equal, deleted; kept within the count', async (t) => {
  const { h, content, registry, admin } = await setup(t, { 'rollback/v1': { archiveSorting: true } })
  const before = await readFile(join(content, 'plugins/extra/version.txt'), 'utf8')
  // The registry's upgrade is what builder-one/v1's routes and the CLI call.
  await registry.upgrade('plugin', 'extra', { version: '1.0.0', actor: { userId: admin.id } })
  t.equal(await readFile(join(content, 'plugins/extra/old.txt'), 'utf8'), 'only in 1.0.0')
  const list = await h.call('GET', '/rollback/v1/archives', { as: admin, query: { orderby: 'version', order: 'ASC' } })
  t.same([list.status, list.body.total], [200, 1])
  const item = list.body.items[0]
  t.match(item, { type: 'plugin', slug: 'extra', version: '2.0.0', user: { id: admin.id }, file_exists: true })
  const [row] = await h.store.execute<{ file: string }>(`select file from rollback_archives where id = ${Number(item.id)}`)
  const archived = await readFile(join(content, row!.file))
  const res = await h.app.inject({ method: 'GET', url: `/cms-json/rollback/v1/archives/${item.id as number}/download`, headers: admin.headers })
  t.equal(res.statusCode, 200)
  t.ok(res.rawPayload.equals(archived), 'byte-equal to the archived zip')
  // Entry names are stored as they are in a zip: the replaced files are in it, not the new version's.
  t.ok(archived.includes('extra/version.txt'))
  t.notOk(archived.includes('extra/old.txt'))
  t.equal(before, '2.0.0')

  // One archive per package: the next replacement drops the older one.
  await h.store.execute('insert into options (name, value) values (\'rollback_archives_per_package\', \'1\'::jsonb)')
  await registry.upgrade('plugin', 'extra', { version: '1.0.0', actor: { userId: admin.id } })
  const kept = await h.call('GET', '/rollback/v1/archives', { as: admin })
  t.same(kept.body.items.map((i: any) => i.version), ['1.0.0'])
  t.notOk(existsSync(join(content, row!.file)), 'the dropped archive\'s file is gone')

  const del = await h.call('DELETE', `/rollback/v1/archives/${kept.body.items[0].id as number}`, { as: admin })
  t.equal(del.status, 200)
  t.same((await h.call('GET', '/rollback/v1/archives', { as: admin })).body, { items: [], total: 0, pages: 0 })
})

// The security harness's traversal list (apps/gateway/test/data/traversal.txt, read from this repository).
const TRAVERSAL = readFileSync(fileURLToPath(new URL('../../../apps/gateway/test/data/traversal.txt', import.meta.url)), 'utf8')
  .split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'))

t.test('a version never becomes a path unchecked (issue 27)', async (t) => {
  const { h, content, admin } = await setup(t)
  // A zip where the unchecked name `extra.<version>.zip` under the scratch directory
  // (content/.registry/tmp/op-*) lands with `x/../../../../canary` as the version.
  const canary = join(content, 'canary.zip')
  await writeFile(canary, 'not yours to delete')
  const step = async (s: string, version: string): Promise<any> =>
    await h.call('POST', '/rollback/v1/process-rollback', { as: admin, body: { type: 'plugin', slug: 'extra', version, step: s } })
  const climbing = await step('download-asset', 'x/../../../../canary')
  t.same([climbing.status, climbing.body.code], [400, 'rest_invalid_param'], 'refused by the declared pattern')
  t.ok(existsSync(canary), 'and the file it named is still there')
  // The pattern is checked before any step runs: the step that writes files stands for all.
  for (const payload of TRAVERSAL) {
    const res = await step('download-asset', payload)
    t.same([res.status, res.body.code], [400, 'rest_invalid_param'], payload)
  }
  t.ok(existsSync(canary))
  t.equal((await step('download-asset', '1.0.0')).status, 200, 'a version of the pattern still works')
  await step('cleanup', '1.0.0')
})

t.test('profile A: an argument only profile B declares is ignored (issue 27)', async (t) => {
  const { h, admin } = await setup(t)
  // orderby is B's argument: on A it reached the handler as sent and indexed the column map (500).
  for (const orderby of ['name', 'slug', 'constructor', '__proto__']) {
    const res = await h.call('GET', '/rollback/v1/archives', { as: admin, query: { orderby, order: 'ASC' } })
    t.equal(res.status, 200, `orderby=${orderby}`)
  }
})

t.test('who may call each rollback route: the permission prober against the routes\' own declarations', async (t) => {
  for (const sorting of [false, true]) {
    const { h } = await setup(t, sorting ? { 'rollback/v1': { archiveSorting: true } } : {})
    const probed = await checkPermissions(t, h, { only: (target) => target.key.includes(' /rollback/v1') })
    t.equal(probed, sorting ? 4 : 7, 'one case per route and method, the root included')
  }
})
