/**
 * The package registry's API as a dependent package uses it (required
 * through the platform), on a real database and content directory: the
 * fresh-site seed, install / activate / deactivate / upgrade / delete from
 * a directory source and from an HTTP source on loopback, the refused zips
 * (traversal, absolute, symlink, entry-count and size bombs: nothing
 * written), failed and interrupted upgrades leaving the old version active,
 * one operation per package (409), and the operations log.
 */
import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, rename, symlink, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { sql } from 'drizzle-orm'
import { definePackage, packageSettingsFromEnv } from '@cms/core'
import { scratchDir, testApp } from '@cms/testing'
import { packageRegistry, registryPackage, type PackageRegistry } from '../src/index.js'
import { createRegistry } from '../src/registry.js'
import { seedPackagesFor } from '../src/catalogue.js'
import { httpSource, makeZip, packageZip, renameInZip, sourceDir } from './zips.js'

const actor = { userId: 7 }

/** A package that depends on the registry and keeps what `require` answers. */
function probe (): { pkg: ReturnType<typeof definePackage>, registry: () => PackageRegistry } {
  let registry: PackageRegistry | undefined
  const pkg = definePackage({
    name: 'registry-probe',
    dependencies: ['@cms/registry'],
    namespaces: ['probe/v1'],
    contribute (api) { registry = api.require(packageRegistry) },
    serve (api) { api.namespace('probe/v1', () => []) }
  })
  return { pkg, registry: () => registry! }
}

async function rejects (t: Test, p: Promise<unknown>, code: string, status: number): Promise<any> {
  try {
    await p
    t.fail(`expected ${code}`)
    return undefined
  } catch (err) {
    t.same([(err as { code?: string }).code, (err as { status?: number }).status], [code, status], (err as Error).message)
    return err
  }
}

async function setup (t: Test, env: Record<string, string> = {}, namespaces = ['cms/v2', 'probe/v1'], dir?: string): Promise<{ registry: PackageRegistry, content: string, h: Awaited<ReturnType<typeof testApp>> }> {
  const content = dir ?? await scratchDir('content')
  const p = probe()
  const h = await testApp({ packages: [registryPackage, p.pkg], namespaces, contentDir: content, env })
  t.teardown(h.close)
  return { registry: p.registry(), content, h }
}

t.test('a fresh site has the seed packages installed and active', async (t) => {
  const { registry, content } = await setup(t)
  t.same(registry.installedSlugs(), { plugins: ['addons', 'builder', 'hdrftr', 'rollback', 'seo'], themes: ['theme-a'] }, 'known before anything is written')
  const list = await registry.list()
  t.same(list.map((p) => [p.type, p.slug, p.status, p.version, p.newVersion]), [
    ['plugin', 'addons', 'active', '0.1.0', null],
    ['plugin', 'builder', 'active', '0.1.0', null],
    ['plugin', 'hdrftr', 'active', '0.1.0', null],
    ['plugin', 'rollback', 'active', '0.1.0', null],
    ['plugin', 'seo', 'active', '0.1.0', null],
    ['theme', 'theme-a', 'active', '0.1.0', null]
  ])
  t.equal(JSON.parse(await readFile(join(content, 'themes/theme-a/manifest.json'), 'utf8')).version, '0.1.0')
  t.ok(existsSync(join(content, 'themes/theme-a/style.css')), 'the theme has its stylesheet')
  t.equal(await registry.activeTheme(), 'theme-a')
  t.same(registry.installedSlugs().plugins, ['addons', 'builder', 'hdrftr', 'rollback', 'seo'])
  await rejects(t, registry.install('plugin', 'extra', { actor }), 'rest_upstream_unconfigured', 503)
  await rejects(t, registry.activate('plugin', 'missing', { actor }), 'package_not_installed', 404)
})

t.test('two processes starting at once over one directory and database place each seed package once', async (t) => {
  const { h } = await setup(t, {}, ['cms/v2', 'probe/v1'])
  const content = await scratchDir('content')
  const seeds = seedPackagesFor(() => false)
  const settings = packageSettingsFromEnv({})
  // Each placement pauses before its rename, long enough for the other process to reach the same package.
  const placing = new Map<string, number>()
  const placed: string[] = []
  let overlap = 0
  const hooks = {
    beforeSeedPlace: async (type: string, slug: string): Promise<void> => {
      const key = `${type}:${slug}`
      placing.set(key, (placing.get(key) ?? 0) + 1)
      if (placing.get(key)! > 1) overlap++
      placed.push(key)
      await new Promise((resolve) => setTimeout(resolve, 100))
      placing.set(key, placing.get(key)! - 1)
    }
  }
  const a = createRegistry({ store: h.store, contentDir: content, settings, seeds }, hooks)
  const b = createRegistry({ store: h.store, contentDir: content, settings, seeds }, hooks)
  const [listA, listB] = await Promise.all([a.list(), b.list()])
  const summary = (list: typeof listA): string[] => list.map((p) => `${p.type}:${p.slug}:${p.version}:${p.status}`)
  t.same(summary(listA), seeds.map((p) => `${p.type}:${p.slug}:0.1.0:active`).sort(), 'the first process lists every seed package')
  t.same(summary(listB), summary(listA), 'and so does the second')
  t.equal(overlap, 0, 'never two placements of one package at once')
  t.same(placed.sort(), seeds.map((p) => `${p.type}:${p.slug}`).sort(), 'each seed package placed once')
  t.same((await readdir(join(content, 'plugins'))).filter((n) => n.startsWith('.')), [], 'no staging directory left')
  t.same(await h.store.execute('select type, slug from registry_locks'), [], 'no lock left')
})

t.test('profile B seeds the plugins of its other namespaces', async (t) => {
  const served = new Set(['assistant/v1', 'theme-helper/v1'])
  t.same(seedPackagesFor((ns) => served.has(ns)).map((p) => p.slug), ['builder', 'addons', 'seo', 'hdrftr', 'rollback', 'assistant', 'theme-helper', 'theme-a'])
})

t.test('in a split deployment each process places the seed packages of its own namespaces, whichever starts first', async (t) => {
  // The gateway's process first (it does not serve assistant/v1), then the assistant's service on the same content directory.
  const first = await setup(t)
  t.same(first.registry.installedSlugs().plugins, ['addons', 'builder', 'hdrftr', 'rollback', 'seo'])
  await first.registry.list()
  t.notOk(existsSync(join(first.content, 'plugins/assistant')), 'the first process places no package of a namespace it does not serve')
  const second = await setup(t, {}, ['cms/v2', 'probe/v1', 'assistant/v1'], first.content)
  t.same(second.registry.installedSlugs().plugins, ['addons', 'assistant', 'builder', 'hdrftr', 'rollback', 'seo'], 'the assistant is a seed package not placed yet')
  const assistant = (await second.registry.list()).find((p) => p.slug === 'assistant')
  t.same([assistant?.status, assistant?.version], ['active', '0.1.0'], 'placed and active')
  t.ok(existsSync(join(first.content, 'plugins/assistant/manifest.json')))
  t.equal((await second.registry.activeNow(async () => undefined))('plugin', 'assistant'), true, 'its namespace is served')
  // Deleted once placed, a seed package stays deleted (its mark is kept).
  await second.registry.deactivate('plugin', 'assistant', { actor })
  await second.registry.delete('plugin', 'assistant', { actor })
  const third = await setup(t, {}, ['cms/v2', 'probe/v1', 'assistant/v1'], first.content)
  await third.registry.list()
  t.notOk(existsSync(join(first.content, 'plugins/assistant')), 'not placed again')
  t.notOk(third.registry.installedSlugs().plugins.includes('assistant'))
})

t.test('a package may require only what its dependencies provide', async (t) => {
  const stranger = definePackage({
    name: 'stranger',
    dependencies: ['@cms/core'],
    namespaces: ['stranger/v1'],
    contribute (api) { api.require(packageRegistry) }
  })
  await t.rejects(testApp({ packages: [registryPackage, stranger], namespaces: ['stranger/v1'] }), /stranger requires the service @cms\/registry\/packages, which none of its dependencies \(@cms\/core\) provides/)
})

async function lifecycle (t: Test, registry: PackageRegistry, content: string): Promise<void> {
  t.same((await registry.source.versions('plugin', 'extra')).map((v) => v.version), ['1.0.0', '2.0.0'])
  const one = await registry.install('plugin', 'extra', { version: '1.0.0', actor })
  t.same([one.version, one.status, one.newVersion], ['1.0.0', 'inactive', '2.0.0'])
  t.equal(await readFile(join(content, 'plugins/extra/version.txt'), 'utf8'), '1.0.0')
  await rejects(t, registry.install('plugin', 'extra', { actor }), 'package_already_installed', 409)
  t.equal((await registry.activate('plugin', 'extra', { actor })).status, 'active')
  const two = await registry.upgrade('plugin', 'extra', { actor })
  t.same([two.version, two.status, two.newVersion], ['2.0.0', 'active', null])
  t.equal(await readFile(join(content, 'plugins/extra/version.txt'), 'utf8'), '2.0.0')
  t.equal(await readFile(join(content, 'plugins/extra/readme.txt'), 'utf8'), 'new in 2', 'the new files are there')
  await rejects(t, registry.delete('plugin', 'extra', { actor }), 'package_is_active', 400)
  t.equal((await registry.deactivate('plugin', 'extra', { actor })).status, 'inactive')
  t.equal((await registry.delete('plugin', 'extra', { actor })).version, '2.0.0')
  t.notOk(existsSync(join(content, 'plugins/extra')))
  t.equal(await registry.get('plugin', 'extra'), null)
  t.same((await readdir(join(content, 'plugins'))).filter((n) => n.startsWith('.')), [], 'no staging or old directory left')
  // A theme: installed, switched to, the old theme inactive; a theme cannot be deactivated.
  await registry.install('theme', 'theme-b', { activate: true, actor })
  t.equal(await registry.activeTheme(), 'theme-b')
  t.equal((await registry.get('theme', 'theme-a'))!.status, 'inactive')
  await rejects(t, registry.deactivate('theme', 'theme-b', { actor }), 'package_theme_deactivate', 400)
  await registry.activate('theme', 'theme-a', { actor })
  t.same((await registry.list({ type: 'theme' })).map((p) => [p.slug, p.status]), [['theme-a', 'active'], ['theme-b', 'inactive']])

  const { entries, total } = await registry.log.list()
  t.ok(total >= 9)
  t.same(entries.slice(0, 4).map((e) => [e.operation, e.type, e.slug, e.outcome]), [
    ['activate', 'theme', 'theme-a', 'success'],
    ['deactivate', 'theme', 'theme-b', 'failure'],
    ['install', 'theme', 'theme-b', 'success'],
    ['delete', 'plugin', 'extra', 'success']
  ], 'newest first')
  const upgrade = entries.find((e) => e.operation === 'upgrade')!
  t.same([upgrade.fromVersion, upgrade.toVersion, upgrade.userId, upgrade.outcome], ['1.0.0', '2.0.0', 7, 'success'])
  t.match(upgrade.time, /^\d{4}-\d\d-\d\dT/)
  t.equal(await registry.log.clear(), total)
  t.same(await registry.log.list(), { entries: [], total: 0 })
}

async function extraSource (): Promise<string> {
  return await sourceDir([
    { type: 'plugin', slug: 'extra', version: '1.0.0', zip: await packageZip('extra', '1.0.0') },
    { type: 'plugin', slug: 'extra', version: '2.0.0', zip: await packageZip('extra', '2.0.0', { 'readme.txt': 'new in 2' }) },
    { type: 'theme', slug: 'theme-b', version: '1.0.0', zip: await packageZip('theme-b', '1.0.0', { 'style.css': 'body{}' }) }
  ])
}

t.test('install, activate, upgrade, deactivate and delete from a directory source', async (t) => {
  const dir = await extraSource()
  const { registry, content } = await setup(t, { CMS_PACKAGE_SOURCE: dir })
  await lifecycle(t, registry, content)
})

t.test('the same from an HTTP source on loopback', async (t) => {
  const server = await httpSource(await extraSource())
  t.teardown(server.close)
  const { registry, content } = await setup(t, { CMS_PACKAGE_SOURCE: server.url })
  await lifecycle(t, registry, content)
  t.ok(server.requests.includes('/repo/index.json'))
  t.ok(server.requests.includes('/repo/plugins/extra.2.0.0.zip'))
  await rejects(t, registry.install('plugin', 'nowhere', { version: '1.0.0', actor }), 'package_version_not_found', 404)
  t.same((await registry.source.versions('plugin', 'extra')).map((v) => v.url), [`${server.url}plugins/extra.1.0.0.zip`, `${server.url}plugins/extra.2.0.0.zip`], 'each version has its address')
})

t.test('an HTTP package over the size limit is refused while it arrives, with no file left', async (t) => {
  const noise = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7919) % 256 ^ (i >> 8)))
  const big = await makeZip([{ name: 'huge/manifest.json', data: JSON.stringify({ name: 'huge', version: '1.0.0' }) }, { name: 'huge/noise.bin', data: noise }], { compress: false })
  const server = await httpSource(await sourceDir([{ type: 'plugin', slug: 'huge', version: '1.0.0', zip: big }]))
  t.teardown(server.close)
  const { registry, content } = await setup(t, { CMS_PACKAGE_SOURCE: server.url, CMS_PACKAGE_MAX_BYTES: String(64 * 1024) })
  await rejects(t, registry.install('plugin', 'huge', { actor }), 'rest_invalid_package', 400)
  t.ok(server.requests.includes('/repo/plugins/huge.1.0.0.zip'), 'it was asked for')
  t.same(await readdir(join(content, '.registry/tmp')).catch(() => []), [], 'no partial download left')
  t.notOk(existsSync(join(content, 'plugins/huge')), 'nothing installed')
})

t.test('a directory source without index.json is listed from its file names', async (t) => {
  const dir = await sourceDir([{ type: 'plugin', slug: 'extra', version: '1.10.0', zip: await packageZip('extra', '1.10.0') }, { type: 'plugin', slug: 'extra', version: '1.9.0', zip: await packageZip('extra', '1.9.0') }], false)
  const { registry } = await setup(t, { CMS_PACKAGE_SOURCE: dir })
  t.same((await registry.source.versions('plugin', 'extra')).map((v) => v.version), ['1.9.0', '1.10.0'])
  t.same((await registry.source.versions('plugin', 'extra')).map((v) => v.url), [null, null], 'a directory has no address to show')
  t.equal((await registry.install('plugin', 'extra', { actor })).version, '1.10.0', 'the newest by default')
})

t.test('bad packages are refused with nothing written', async (t) => {
  const manifest = (slug: string): { name: string, data: string } => ({ name: `${slug}/manifest.json`, data: JSON.stringify({ name: slug, version: '1.0.0' }) })
  const bad = {
    traversal: renameInZip(await makeZip([manifest('trav'), { name: 'trav/xx/evil.txt', data: 'pwned' }]), 'trav/xx/evil.txt', 'trav/../evil.txt'),
    absolute: renameInZip(await makeZip([manifest('abso'), { name: 'xtmp/cms-evil-abs.txt', data: 'pwned' }]), 'xtmp/cms-evil-abs.txt', '/tmp/cms-evil-abs.txt'),
    symlink: await makeZip([manifest('link'), { name: 'link/passwd', data: '/etc/passwd', mode: 0o120777 }]),
    entries: await makeZip([manifest('many'), ...Array.from({ length: 60 }, (_, i) => ({ name: `many/f${i}.txt`, data: 'x' }))]),
    bytes: await makeZip([manifest('bomb'), { name: 'bomb/zeros.bin', data: Buffer.alloc(3 * 1024 * 1024) }]),
    corrupt: Buffer.from('PK\u0003\u0004 this is not a zip at all')
  }
  const slugs = { traversal: 'trav', absolute: 'abso', symlink: 'link', entries: 'many', bytes: 'bomb', corrupt: 'junk' }
  t.ok(bad.bytes.length < 64 * 1024, 'the size bomb is small packed')
  const dir = await sourceDir(Object.entries(bad).map(([k, zip]) => ({ type: 'plugin' as const, slug: slugs[k as keyof typeof slugs], version: '1.0.0', zip })))
  const { registry, content } = await setup(t, { CMS_PACKAGE_SOURCE: dir, CMS_PACKAGE_MAX_ENTRIES: '50', CMS_PACKAGE_MAX_BYTES: String(1024 * 1024) })
  await registry.list()
  const before = (await readdir(join(content, 'plugins'))).sort()
  for (const [kind, slug] of Object.entries(slugs)) {
    const err = await rejects(t, registry.install('plugin', slug, { actor }), 'rest_invalid_package', 400)
    t.comment(`${kind}: ${(err as Error).message}`)
    t.same((await readdir(join(content, 'plugins'))).sort(), before, `${kind}: nothing written`)
  }
  t.notOk(existsSync(join(content, 'evil.txt')))
  t.notOk(existsSync(join(content, 'plugins/evil.txt')))
  t.notOk(existsSync('/tmp/cms-evil-abs.txt'))
  const failures = (await registry.log.list()).entries.filter((e) => e.outcome === 'failure')
  t.equal(failures.length, 6, 'each refusal is in the log')
  // The same checks on a zip given directly (rollback's validation).
  const file = join(dir, 'plugins', 'trav.1.0.0.zip')
  await rejects(t, registry.inspect(file, { type: 'plugin', slug: 'trav' }), 'rest_invalid_package', 400)
  const good = join(dir, 'good.zip')
  await writeFile(good, await packageZip('extra', '3.0.0'))
  t.equal((await registry.inspect(good, { type: 'plugin', slug: 'extra', version: '3.0.0' })).version, '3.0.0')
  await rejects(t, registry.inspect(good, { type: 'plugin', slug: 'extra', version: '2.0.0' }), 'rest_invalid_package', 400)
  await rejects(t, registry.inspect(good, { type: 'plugin', slug: 'other' }), 'rest_invalid_package', 400)
})

t.test('a failed or interrupted upgrade leaves the old version installed and active', async (t) => {
  const dir = await extraSource()
  await writeFile(join(dir, 'plugins', 'extra.3.0.0.zip'), (await packageZip('extra', '3.0.0')).subarray(0, 100))
  const { registry, content, h } = await setup(t, { CMS_PACKAGE_SOURCE: dir })
  await registry.install('plugin', 'extra', { version: '1.0.0', activate: true, actor })
  await rejects(t, registry.upgrade('plugin', 'extra', { version: '3.0.0', actor }), 'rest_invalid_package', 400)
  const after = await registry.get('plugin', 'extra')
  t.same([after!.version, after!.status], ['1.0.0', 'active'], 'a corrupt zip: the old version stays')

  // Stopped after unpacking, before the rename: the staging directory goes, the old version stays.
  const settings = packageSettingsFromEnv({ CMS_PACKAGE_SOURCE: dir })
  const seeds = seedPackagesFor(() => false)
  const crashing = createRegistry({ store: h.store, contentDir: content, settings, seeds }, {
    afterUnpack: async (_type, _slug, staging) => {
      t.equal(await readFile(join(staging, 'version.txt'), 'utf8'), '2.0.0', 'unpacked beside the target')
      throw new Error('process stopped')
    }
  })
  await t.rejects(crashing.upgrade('plugin', 'extra', { version: '2.0.0', actor }), /process stopped/)
  t.equal(await readFile(join(content, 'plugins/extra/version.txt'), 'utf8'), '1.0.0')
  t.same([(await registry.get('plugin', 'extra'))!.status], ['active'])
  t.same((await readdir(join(content, 'plugins'))).filter((n) => n.startsWith('.')), [])

  // Stopped between the two renames (the installed directory moved aside, the new one not yet in place):
  // the next start puts the old version back.
  await rename(join(content, 'plugins/extra'), join(content, 'plugins/.old-extra-0123456789ab'))
  await mkdir(join(content, 'plugins/.staging-extra-aaaaaaaaaaaa'))
  // Scratch directories of stopped downloads and rollbacks: one untouched for three hours goes; one just made
  // (a live operation of a replica sharing the directory) stays, as does a link's target outside the root.
  const tmp = join(content, '.registry/tmp')
  await mkdir(join(tmp, 'op-Stale1'), { recursive: true })
  await writeFile(join(tmp, 'op-Stale1/extra.2.0.0.zip'), 'partial')
  const threeHoursAgo = new Date(Date.now() - 3 * 60 * 60 * 1000)
  await utimes(join(tmp, 'op-Stale1'), threeHoursAgo, threeHoursAgo)
  await mkdir(join(tmp, 'op-Live01'))
  const outside = await scratchDir('outside')
  await writeFile(join(outside, 'keep.txt'), 'not the registry\'s')
  await utimes(outside, threeHoursAgo, threeHoursAgo)
  await symlink(outside, join(tmp, 'op-Link01'))
  // A replica's upgrade of hdrftr in progress (its lock live): its staging directory is its own.
  await h.store.execute(sql`insert into registry_locks (type, slug, token, operation) values ('plugin', 'hdrftr', 'replica', 'upgrade')`)
  await mkdir(join(content, 'plugins/.staging-hdrftr-bbbbbbbbbbbb'))
  const restarted = createRegistry({ store: h.store, contentDir: content, settings, seeds })
  const back = await restarted.get('plugin', 'extra')
  t.same([back!.version, back!.status], ['1.0.0', 'active'])
  t.same((await readdir(join(content, 'plugins'))).filter((n) => n.startsWith('.')), ['.staging-hdrftr-bbbbbbbbbbbb'], 'a live lock keeps its package\'s staging')
  t.same((await readdir(tmp)).sort(), ['op-Link01', 'op-Live01'], 'the stale scratch directory went, the fresh one and the link stayed')
  t.equal(await readFile(join(outside, 'keep.txt'), 'utf8'), 'not the registry\'s', 'nothing followed out of the root')
})

t.test('one operation per package at a time', async (t) => {
  const dir = await extraSource()
  const { registry, content, h } = await setup(t, { CMS_PACKAGE_SOURCE: dir })
  await registry.install('plugin', 'extra', { version: '1.0.0', actor })
  let release!: () => void
  const gate = new Promise<void>((resolve) => { release = resolve })
  let unpacked!: () => void
  const reached = new Promise<void>((resolve) => { unpacked = resolve })
  const slow = createRegistry({ store: h.store, contentDir: content, settings: packageSettingsFromEnv({ CMS_PACKAGE_SOURCE: dir }), seeds: [] }, {
    afterUnpack: async () => { unpacked(); await gate }
  })
  const first = slow.upgrade('plugin', 'extra', { version: '2.0.0', actor })
  await reached
  await rejects(t, registry.upgrade('plugin', 'extra', { version: '2.0.0', actor }), 'package_operation_in_progress', 409)
  await rejects(t, registry.delete('plugin', 'extra', { actor }), 'package_operation_in_progress', 409)
  t.equal((await registry.activate('plugin', 'hdrftr', { actor })).status, 'active', 'another package is not held')
  release()
  t.equal((await first).version, '2.0.0')
  t.equal((await registry.deactivate('plugin', 'extra', { actor })).status, 'inactive', 'the lock is released')
  // Calls inside lock() share it.
  const inner = await registry.lock('plugin', 'extra', 'rollback', async () => await registry.activate('plugin', 'extra', { actor }))
  t.equal(inner.status, 'active')
})

t.test('the package settings are checked at start', async (t) => {
  t.same(packageSettingsFromEnv({}, '/srv'), { maxBytes: 256 * 1024 * 1024, maxEntries: 20_000 })
  t.same(packageSettingsFromEnv({ CMS_PACKAGE_SOURCE: 'packages' }, '/srv').source, { kind: 'dir', path: '/srv/packages' })
  t.same(packageSettingsFromEnv({ CMS_PACKAGE_SOURCE: 'https://packages.example/repo' }).source, { kind: 'url', url: 'https://packages.example/repo/' })
  t.throws(() => packageSettingsFromEnv({ CMS_PACKAGE_SOURCE: 'ftp://packages.example/' }), /CMS_PACKAGE_SOURCE/)
  t.throws(() => packageSettingsFromEnv({ CMS_PACKAGE_SOURCE: 'https://user:secret@packages.example/' }), { message: /^(?!.*secret)/ })
  t.throws(() => packageSettingsFromEnv({ CMS_PACKAGE_MAX_BYTES: '12abc' }), /CMS_PACKAGE_MAX_BYTES/)
  t.throws(() => packageSettingsFromEnv({ CMS_PACKAGE_MAX_ENTRIES: '0' }), /CMS_PACKAGE_MAX_ENTRIES/)
})
