// `cms plugin` and `cms theme` in-process against a test store and a
// content directory: install from a directory source, activate, upgrade,
// deactivate, delete, the theme switch, and the errors a user sees.
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import yazl from 'yazl'
import { openTestStore } from '@cms/store/testing'
import { createCaller } from '@cms/core/testing'
import { buildApp, loadSettings } from '@cms/gateway'
import { inProcess } from './helpers.js'

async function packageZip (slug: string, version: string): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  zip.addBuffer(Buffer.from(JSON.stringify({ name: `Package ${slug}`, version })), `${slug}/manifest.json`)
  zip.addBuffer(Buffer.from(version), `${slug}/version.txt`)
  zip.end()
  const chunks: Buffer[] = []
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

t.test('cms plugin and cms theme', async (t) => {
  const db = await openTestStore({ migrate: false })
  t.teardown(() => db.close())
  const content = await mkdtemp(join(tmpdir(), 'cms-cli-content-'))
  t.teardown(async () => { await rm(content, { recursive: true, force: true }) })
  const source = await mkdtemp(join(tmpdir(), 'cms-cli-source-'))
  t.teardown(async () => { await rm(source, { recursive: true, force: true }) })
  await mkdir(join(source, 'plugins'))
  await mkdir(join(source, 'themes'))
  for (const v of ['1.0.0', '2.0.0']) await writeFile(join(source, 'plugins', `extra.${v}.zip`), await packageZip('extra', v))
  await writeFile(join(source, 'themes', 'dark.1.0.0.zip'), await packageZip('dark', '1.0.0'))
  const { exec } = inProcess(db, { CMS_CONTENT_DIR: content, CMS_PACKAGE_SOURCE: source })
  t.equal((await exec(['migrate'])).code, 0)

  const list = await exec(['plugin', 'list'])
  t.equal(list.code, 0, list.stderr)
  t.match(list.stdout, /^builder\tactive\t0\.1\.0\t-\tPage Builder$/m, 'the seed packages')
  t.match(list.stdout, /^rollback\tactive\t0\.1\.0\t-\tRollback$/m)

  t.same(await exec(['plugin', 'install', 'extra', '--version', '1.0.0']), { code: 0, stdout: 'plugin extra installed: 1.0.0, inactive\n', stderr: '' })
  t.equal(await readFile(join(content, 'plugins/extra/version.txt'), 'utf8'), '1.0.0')
  t.match((await exec(['plugin', 'list'])).stdout, /^extra\tinactive\t1\.0\.0\t2\.0\.0\tPackage extra$/m, 'the newer version in the source')
  t.same(await exec(['plugin', 'activate', 'extra']), { code: 0, stdout: 'plugin extra activated: 1.0.0, active\n', stderr: '' })
  t.same(await exec(['plugin', 'upgrade', 'extra']), { code: 0, stdout: 'plugin extra upgraded: 2.0.0, active\n', stderr: '' })
  t.equal(await readFile(join(content, 'plugins/extra/version.txt'), 'utf8'), '2.0.0')
  const active = await exec(['plugin', 'delete', 'extra'])
  t.equal(active.code, 1)
  t.match(active.stderr, /^cms: The package is active; deactivate it/)
  t.equal((await exec(['plugin', 'deactivate', 'extra'])).code, 0)
  t.same(await exec(['plugin', 'delete', 'extra']), { code: 0, stdout: 'plugin extra deleted: 2.0.0\n', stderr: '' })
  t.notOk(existsSync(join(content, 'plugins/extra')))
  const json = JSON.parse((await exec(['plugin', 'list', '--json'])).stdout)
  t.same(json.map((p: { slug: string }) => p.slug), ['addons', 'builder', 'hdrftr', 'rollback', 'seo'])

  t.same(await exec(['theme', 'install', 'dark', '--activate']), { code: 0, stdout: 'theme dark installed: 1.0.0, active\n', stderr: '' })
  t.match((await exec(['theme', 'list'])).stdout, /^dark\tactive\t1\.0\.0\t-\tPackage dark\ntheme-a\tinactive\t0\.1\.0\t-\tTheme A$/m)
  t.equal((await exec(['theme', 'activate', 'theme-a'])).code, 0)

  for (const [args, code, message] of [
    [['plugin', 'activate', 'nothing'], 1, /^cms: The plugin "nothing" is not installed\.$/m],
    [['plugin', 'install', 'ghost'], 1, /^cms: The package source does not offer the plugin "ghost"\.$/m],
    [['theme', 'deactivate', 'dark'], 2, /unknown subcommand "deactivate"/],
    [['plugin', 'frob'], 2, /unknown subcommand "frob"/],
    [['plugin', 'install'], 2, /expected: cms plugin install <slug>/],
    [['plugin'], 2, /missing subcommand/]
  ] as const) {
    const r = await exec([...args])
    t.equal(r.code, code, args.join(' '))
    t.match(r.stderr, message)
  }
  t.match((await exec(['plugin', '--help'])).stdout, /cms plugin install <slug>/)
})

t.test('cms plugin activate is the way back: a running app serves the package again at once', async (t) => {
  const db = await openTestStore({ migrate: false })
  t.teardown(() => db.close())
  const content = await mkdtemp(join(tmpdir(), 'cms-cli-content-'))
  t.teardown(async () => { await rm(content, { recursive: true, force: true }) })
  const settings = loadSettings({ CMS_DEPLOYMENT: 'B', CMS_BASE_URL: 'http://cms.test', LOG_LEVEL: 'silent', CMS_CONTENT_DIR: content, CMS_DATA_DIR: '/nonexistent-not-used' })
  const app = await buildApp(settings, { store: db, logger: false, jobs: false })
  t.teardown(() => app.close())
  const admin = await createCaller(db, 'administrator')
  const get = async (url: string): Promise<number> => (await app.inject({ method: 'GET', url: `/cms-json${url}`, headers: admin.headers })).statusCode
  const { exec } = inProcess(db, { CMS_CONTENT_DIR: content, CMS_DEPLOYMENT: 'B' })

  // Deactivated through the service itself: its routes are gone, the CLI brings them back.
  const off = await app.inject({ method: 'POST', url: '/cms-json/builder-one/v1/plugins/builder/deactivate', headers: admin.headers })
  t.equal(off.statusCode, 200)
  t.equal(await get('/builder/v1/globals/colors'), 404)
  t.match((await exec(['plugin', 'list'])).stdout, /^builder\tinactive\t/m)
  t.same(await exec(['plugin', 'activate', 'builder']), { code: 0, stdout: 'plugin builder activated: 0.1.0, active\n', stderr: '' })
  t.equal(await get('/builder/v1/globals/colors'), 200, 'served again, without a restart')
  t.same(await exec(['plugin', 'deactivate', 'builder']), { code: 0, stdout: 'plugin builder deactivated: 0.1.0, inactive\n', stderr: '' })
  t.equal(await get('/builder/v1/globals/colors'), 404, 'and gone again')
})

t.test('cms plugin activate brings back the management package itself: profile A\'s rollback plugin, whose routes are gone while it is off', async (t) => {
  const db = await openTestStore({ migrate: false })
  t.teardown(() => db.close())
  const content = await mkdtemp(join(tmpdir(), 'cms-cli-content-'))
  t.teardown(async () => { await rm(content, { recursive: true, force: true }) })
  const settings = loadSettings({ CMS_DEPLOYMENT: 'A', CMS_BASE_URL: 'http://cms.test', LOG_LEVEL: 'silent', CMS_CONTENT_DIR: content, CMS_DATA_DIR: '/nonexistent-not-used' })
  const app = await buildApp(settings, { store: db, logger: false, jobs: false })
  t.teardown(() => app.close())
  const admin = await createCaller(db, 'administrator')
  const get = async (url: string): Promise<number> => (await app.inject({ method: 'GET', url: `/cms-json${url}`, headers: admin.headers })).statusCode
  const { exec } = inProcess(db, { CMS_CONTENT_DIR: content, CMS_DEPLOYMENT: 'A' })

  // rollback/v1 is the one package-management namespace of profile A: with it off, no route of the service manages packages.
  t.equal(await get('/rollback/v1'), 200)
  t.same(await exec(['plugin', 'deactivate', 'rollback']), { code: 0, stdout: 'plugin rollback deactivated: 0.1.0, inactive\n', stderr: '' })
  t.equal(await get('/rollback/v1'), 404, 'its routes are gone from the running app')
  t.notOk(JSON.parse((await app.inject({ method: 'GET', url: '/cms-json/', headers: admin.headers })).body).namespaces.includes('rollback/v1'))
  t.same(await exec(['plugin', 'activate', 'rollback']), { code: 0, stdout: 'plugin rollback activated: 0.1.0, active\n', stderr: '' })
  t.equal(await get('/rollback/v1'), 200, 'served again by the running app, without a restart')
})
