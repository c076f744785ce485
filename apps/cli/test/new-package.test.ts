/**
 * `cms new package` end to end, as a contributor adds a package: the
 * scaffold is written into a workspace of its own (a temporary folder with
 * pnpm-workspace.yaml and packages/), its namespace added to a profile file
 * of that workspace, and the gateway serves it: found through the package's
 * `cms` field (CMS_PACKAGES_PATH naming that packages/), migrated from the
 * migrations drizzle-kit writes, in the index, OpenAPI, the permission
 * prober. Nothing of this repository is edited (checked at the end).
 *
 * test-all: loader (the gateway imports the scaffold's src/index.ts in this
 * process: the test command runs this file with its TypeScript loader).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { buildApp, loadSettings, profiles } from '@cms/gateway'
import { checkPermissions, createCaller } from '@cms/core/testing'
import { migrateTestStore, openTestStore } from '@cms/store/testing'
import { inProcess } from './helpers.js'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
const NS = 'notes/v1'
type App = Awaited<ReturnType<typeof buildApp>>

/** What `pnpm install` does for the new package: its dependencies linked into its node_modules. */
function linkDependencies (dir: string): void {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
  for (const dep of Object.keys(manifest.dependencies)) {
    const target = dep.startsWith('@cms/')
      ? join(repo, 'packages', dep.slice('@cms/'.length))
      : realpathSync(join(repo, 'packages', 'core', 'node_modules', dep))
    mkdirSync(dirname(join(dir, 'node_modules', dep)), { recursive: true })
    symlinkSync(target, join(dir, 'node_modules', dep), 'dir')
  }
}

/** A request under /cms-json, as JSON, by `as` (a caller's headers) or anonymously. */
async function call (app: App, method: 'GET' | 'POST', path: string, opts: { as?: { headers: Record<string, string> }, body?: unknown, query?: Record<string, string | number> } = {}) {
  const query = new URLSearchParams(Object.entries(opts.query ?? {}).map(([k, v]) => [k, String(v)])).toString()
  const res = await app.inject({
    method,
    url: `/cms-json${path}${query === '' ? '' : `?${query}`}`,
    headers: { ...opts.as?.headers, ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }) },
    payload: opts.body === undefined ? undefined : JSON.stringify(opts.body)
  })
  return { status: res.statusCode, headers: res.headers, body: JSON.parse(res.body) }
}

/** The repository's profile files and packages/ folders, to show they are left alone. */
function repositoryState (): string {
  const profilesDir = join(repo, 'apps', 'gateway', 'profiles')
  return JSON.stringify([readdirSync(join(repo, 'packages')), readdirSync(profilesDir).map((f) => readFileSync(join(profilesDir, f), 'utf8'))])
}

t.test('a package made by `cms new package`, added to a profile file, is served by the gateway', async (t) => {
  const before = repositoryState()
  const ws = mkdtempSync(join(tmpdir(), 'cms-workspace-'))
  t.teardown(() => { rmSync(ws, { recursive: true, force: true }) })
  writeFileSync(join(ws, 'pnpm-workspace.yaml'), 'packages:\n  - packages/*\n')
  mkdirSync(join(ws, 'packages'))
  mkdirSync(join(ws, 'profiles'))
  // The deployment's own profile: A's namespaces, in a file of its own.
  writeFileSync(join(ws, 'profiles', 'Notes.json'), `${JSON.stringify({ namespaces: profiles.A!.namespaces }, null, 2)}\n`)

  const cli = inProcess(undefined, { CMS_PROFILES: join(ws, 'profiles') })
  const made = await cli.exec(['new', 'package', 'notes', '--namespace', NS, '--profile', 'Notes', '--root', ws])
  t.equal(made.code, 0, made.stderr)
  t.match(made.stdout, `added ${NS} to ${join(ws, 'profiles', 'Notes.json')}`)
  const pkg = join(ws, 'packages', 'notes')
  t.same(JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).cms, { plugin: './src/index.ts', namespaces: [NS] })
  for (const file of ['.taprc', 'tsconfig.json', 'drizzle.config.ts', 'src/schema.ts', 'src/items.ts', 'test/items.test.ts', 'migrations/0000_notes_items.sql', 'migrations/meta/_journal.json']) {
    t.ok(existsSync(join(pkg, file)), file)
  }
  t.same(JSON.parse(readFileSync(join(ws, 'profiles', 'Notes.json'), 'utf8')).namespaces, [...profiles.A!.namespaces, NS], 'the namespace added last')
  t.equal((await cli.exec(['new', 'package', 'notes', '--namespace', NS, '--root', ws])).code, 2, 'a second time: refused')
  linkDependencies(pkg)

  t.test('its migrations are what drizzle-kit writes from its table', async (t) => {
    const generate = spawnSync(process.execPath, [join(repo, 'scripts', 'db-generate.mjs')], { cwd: pkg, encoding: 'utf8' })
    t.equal(generate.status, 0, generate.stderr)
    t.match(generate.stdout, /No schema changes/, 'nothing to generate: the scaffold\'s SQL and snapshot match src/schema.ts')
  })

  const store = await openTestStore({ migrate: 'later' })
  const content = mkdtempSync(join(tmpdir(), 'cms-test-content-'))
  t.teardown(() => { rmSync(content, { recursive: true, force: true }) })
  const settings = loadSettings({
    CMS_BASE_URL: 'http://cms.test',
    LOG_LEVEL: 'silent',
    CMS_CONTENT_DIR: content,
    CMS_PACKAGES_PATH: join(ws, 'packages'),
    CMS_PROFILES: join(ws, 'profiles'),
    CMS_DEPLOYMENT: 'Notes'
  })
  const app = await buildApp(settings, { store, logger: false, jobs: false, migrate: migrateTestStore })
  t.teardown(async () => { await app.close(); await store.close() })
  await app.ready()
  const h = { app, store }

  const index = await call(app, 'GET', '/')
  t.equal(index.body.namespaces.at(-1), NS, 'the index lists it where the profile does')
  t.same(index.body.routes[`/${NS}/items`].methods, ['GET', 'POST'])
  const doc = await app.inject({ method: 'GET', url: '/openapi.json' })
  t.ok(JSON.parse(doc.body).paths[`/cms-json/${NS}/items`]?.post !== undefined, 'OpenAPI')

  const editor = await createCaller(store, 'editor')
  const first = await call(app, 'POST', `/${NS}/items`, { as: editor, body: { title: 'First' } })
  t.equal(first.status, 201)
  t.equal(first.headers.location, `http://cms.test/index.php?rest_route=/${NS}/items/${first.body.id}`, 'Location: the route\'s own path and the id')
  await call(app, 'POST', `/${NS}/items`, { as: editor, body: { title: 'Second' } })
  t.equal((await call(app, 'POST', `/${NS}/items`, { as: editor, body: { title: '' } })).status, 400, 'validated')
  t.equal((await call(app, 'POST', `/${NS}/items`, { body: { title: 'Anonymous' } })).status, 401)
  const page = await call(app, 'GET', `/${NS}/items`, { query: { per_page: 1 } })
  t.same([page.status, page.body.map((i: { title: string }) => i.title), page.headers['x-cms-total']], [200, ['Second'], '2'])
  t.equal(page.headers.link, `<http://cms.test/index.php?rest_route=%2F${NS.replace('/', '%2F')}%2Fitems&per_page=1&page=2>; rel="next"`)

  t.test('the permission prober checks its routes against their declarations', async (t) => {
    t.equal(await checkPermissions(t, h, { only: (target) => target.key.includes(` /${NS}`) }), 3, 'the root, the list, the create')
  })
  t.test('nothing of the repository was edited', async (t) => {
    t.equal(repositoryState(), before)
  })
})
