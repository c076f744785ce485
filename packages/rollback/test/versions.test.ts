/**
 * rollback/v1 through HTTP on a real database and content directory: the
 * versions fetch-info offers (the source's and the archived ones; without
 * a source, the archives and the installed version, as the real product's
 * premium path lists them), a step that finds the package busy with
 * another operation leaving the running rollback's maintenance on, and
 * concurrent downloads of one rollback leaving no scratch files behind.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { definePackage } from '@cms/core'
import { scratchDir, testApp, type TestApp, type TestCaller } from '@cms/testing'
import { packageRegistry, registryPackage, type PackageRegistry } from '@cms/registry'
import { rollbackPackage } from '../src/index.js'
import { packageZip, sourceDir } from '../../registry/test/zips.js'

async function setup (t: Test, env: Record<string, string>): Promise<{ h: TestApp, content: string, registry: PackageRegistry, admin: TestCaller }> {
  const content = await scratchDir('rollback-versions')
  await mkdir(join(content, 'plugins/extra'), { recursive: true })
  await writeFile(join(content, 'plugins/extra/manifest.json'), JSON.stringify({ name: 'Extra', version: '2.0.0', slug: 'extra' }))
  await writeFile(join(content, 'plugins/extra/version.txt'), '2.0.0')
  let registry: PackageRegistry | undefined
  const probe = definePackage({ name: 'probe', dependencies: ['@cms/registry'], namespaces: ['probe/v1'], contribute (api) { registry = api.require(packageRegistry) } })
  const h = await testApp({ packages: [registryPackage, rollbackPackage, probe], namespaces: ['cms/v2', 'rollback/v1', 'probe/v1'], contentDir: content, env })
  t.teardown(h.close)
  await registry!.activate('plugin', 'extra', { actor: { userId: 0 } })
  return { h, content, registry: registry!, admin: await h.caller('administrator') }
}

t.test('fetch-info without a package source: the archived versions and the installed one', async (t) => {
  const { h, content, admin } = await setup(t, {})
  const info = async (): Promise<any> => (await h.call('GET', '/rollback/v1/fetch-info', { as: admin, query: { type: 'plugin', slug: 'extra' } })).body.data
  const step = async (s: string, version: string): Promise<any> =>
    await h.call('POST', '/rollback/v1/process-rollback', { as: admin, body: { type: 'plugin', slug: 'extra', version, step: s } })

  const first = await info()
  t.same([first.isPro, first.hasVersions, Object.keys(first.versions)], [true, false, ['2.0.0']], 'the installed version alone: nothing to roll to')
  // 2.0.0 archived by the backup step, then the plugin moves on to 3.0.0 (as the command line's upgrade would).
  t.equal((await step('backup-asset', '2.0.0')).status, 200)
  t.equal((await step('cleanup', '2.0.0')).status, 200)
  await writeFile(join(content, 'plugins/extra/manifest.json'), JSON.stringify({ name: 'Extra', version: '3.0.0', slug: 'extra' }))
  await writeFile(join(content, 'plugins/extra/version.txt'), '3.0.0')
  const later = await info()
  t.same([later.currentVersion, later.hasVersions, Object.keys(later.versions)], ['3.0.0', true, ['2.0.0', '3.0.0']], 'the archive is offered')
  t.same(later.versions['2.0.0'], { file: 'extra.2.0.0.zip', downloadUrl: null, released: null })
  // What it offers works: the six steps to 2.0.0 from its archive, no source needed.
  for (const s of ['maintenance-mode', 'download-asset', 'backup-asset', 'validate-package', 'replace-asset', 'cleanup']) {
    const r = await step(s, '2.0.0')
    t.equal(r.status, 200, `${s}: ${String(r.body.message)}`)
  }
  t.equal(await readFile(join(content, 'plugins/extra/version.txt'), 'utf8'), '2.0.0')
  t.same(Object.keys((await info()).versions), ['2.0.0', '3.0.0'], 'now 3.0.0 is the archived one')
})

t.test('fetch-info with a package source: its versions and the archived ones, in version order', async (t) => {
  const source = await sourceDir([{ type: 'plugin', slug: 'extra', version: '1.0.0', zip: await packageZip('extra', '1.0.0') }])
  const { h, admin } = await setup(t, { CMS_PACKAGE_SOURCE: source })
  const step = async (s: string, version: string): Promise<any> =>
    await h.call('POST', '/rollback/v1/process-rollback', { as: admin, body: { type: 'plugin', slug: 'extra', version, step: s } })
  for (const s of ['maintenance-mode', 'download-asset', 'backup-asset', 'validate-package', 'replace-asset', 'cleanup']) t.equal((await step(s, '1.0.0')).status, 200, s)
  const info = (await h.call('GET', '/rollback/v1/fetch-info', { as: admin, query: { type: 'plugin', slug: 'extra' } })).body.data
  t.same([info.currentVersion, info.isPro, info.hasVersions], ['1.0.0', false, true])
  t.same(Object.keys(info.versions), ['1.0.0', '2.0.0'], 'the source\'s 1.0.0 and the archived 2.0.0 (the version rolled back from)')
})

t.test('a step that finds the package busy leaves the running rollback\'s maintenance on', async (t) => {
  const source = await sourceDir([{ type: 'plugin', slug: 'extra', version: '1.0.0', zip: await packageZip('extra', '1.0.0') }])
  const { h, registry, admin } = await setup(t, { CMS_PACKAGE_SOURCE: source })
  const step = async (s: string): Promise<any> =>
    await h.call('POST', '/rollback/v1/process-rollback', { as: admin, body: { type: 'plugin', slug: 'extra', version: '1.0.0', step: s } })
  const maintenanceOn = async (): Promise<boolean> => (await h.call('GET', '/cms/v2/posts')).status === 503
  for (const s of ['maintenance-mode', 'download-asset', 'validate-package']) t.equal((await step(s)).status, 200, s)
  t.ok(await maintenanceOn())
  // Another operation on the package holds it (a second replace-asset of the same rollback, an upgrade...).
  let release: () => void = () => {}
  const held = new Promise<void>((resolve) => { release = resolve })
  let entered: () => void = () => {}
  const inside = new Promise<void>((resolve) => { entered = resolve })
  const holder = registry.lock('plugin', 'extra', 'upgrade', async () => { entered(); await held })
  await inside
  const busy = await step('replace-asset')
  t.same([busy.status, busy.body.code], [409, 'package_operation_in_progress'])
  t.ok(await maintenanceOn(), 'the site stays in maintenance while the other operation runs')
  release()
  await holder
  const done = await step('replace-asset')
  t.equal(done.status, 200, 'the step runs once the package is free')
  t.notOk(await maintenanceOn(), 'and lifts maintenance')
  t.equal((await step('cleanup')).status, 200)
})

t.test('concurrent download-asset requests of one rollback leave one scratch directory, removed by cleanup', async (t) => {
  const source = await sourceDir([{ type: 'plugin', slug: 'extra', version: '1.0.0', zip: await packageZip('extra', '1.0.0') }])
  const { h, content, admin } = await setup(t, { CMS_PACKAGE_SOURCE: source })
  const step = async (s: string): Promise<any> =>
    await h.call('POST', '/rollback/v1/process-rollback', { as: admin, body: { type: 'plugin', slug: 'extra', version: '1.0.0', step: s } })
  const scratch = async (): Promise<string[]> => await readdir(join(content, '.registry/tmp')).catch(() => [])
  t.equal((await step('maintenance-mode')).status, 200)
  const all = await Promise.all(Array.from({ length: 5 }, async () => await step('download-asset')))
  const statuses = all.map((r) => r.status)
  t.ok(statuses.includes(200), 'one download ran')
  t.same(statuses.filter((s) => s !== 200).map(() => 409), statuses.filter((s) => s !== 200), 'the others found the package busy')
  t.equal((await scratch()).length, 1, 'one scratch directory, the recorded one')
  t.equal((await step('validate-package')).status, 200)
  t.equal((await step('cleanup')).status, 200)
  t.same(await scratch(), [], 'cleanup removes it: nothing left behind')
})
