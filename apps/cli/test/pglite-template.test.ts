/**
 * A first start on the embedded database copies the migrated template
 * (src/pglite-template.ts makes it; packages/store's template.ts picks it)
 * instead of running initdb and every migration (issue 34): the service,
 * started on fresh data directories from one template, answers with every
 * migration applied, and each install gets its own site key and first
 * administrator, never the template's (it holds none). Spoken to over HTTP
 * and through the service's database socket. Without a usable template:
 * pglite-template-fallback.test.ts.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { childArgs } from '@cms/store/testing'
import { inside, me, start } from './service.js'

const MAKER = fileURLToPath(new URL('../src/pglite-template.ts', import.meta.url))

t.test('fresh data directories from one migrated template: migrated, each with its own secrets', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'cms-pglite-template-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const templates = join(root, 'templates')
  const made = spawnSync(process.execPath, [...childArgs(MAKER), templates], { encoding: 'utf8', env: { ...process.env, CMS_PACKAGES_PATH: '' } })
  t.equal(made.status, 0, made.stderr)
  t.match(made.stdout, /migrated template made in/)
  const [name] = readdirSync(templates)
  const manifest = JSON.parse(readFileSync(join(templates, name!, 'manifest.json'), 'utf8')) as { build: string, sets: Array<{ name: string, migrations: unknown[] }> }
  const expected = Object.fromEntries(manifest.sets.map((s) => [s.name, s.migrations.length]))
  t.ok(expected['@cms/core']! > 10 && expected['@cms/import']! > 0, 'the template holds the core\'s and the importer\'s migrations, among others')
  const again = spawnSync(process.execPath, [...childArgs(MAKER), templates], { encoding: 'utf8', env: { ...process.env, CMS_PACKAGES_PATH: '' } })
  t.equal(again.stdout, '', 'made once: a second run finds it')

  const one = await start(t, root, 'one', templates)
  t.match(one.log(), /created \S+ from the migrated template/, 'copied, not made by initdb')
  t.notMatch(one.log(), /initdb/)
  t.equal(await me(one, one.appPassword), 200, 'the first administrator\'s application password signs in')
  const two = await start(t, root, 'two', templates)
  t.equal(await me(two, two.appPassword), 200)

  const a = await inside(one.dataDir, Object.keys(expected))
  const b = await inside(two.dataDir, Object.keys(expected))
  t.same(a.applied, expected, 'every migration of the template recorded, none applied twice')
  t.same(b.applied, expected)
  t.equal(a.users, 1, 'its own first administrator only')
  t.equal(b.users, 1)
  t.equal(a.siteKeys.length, 1)
  t.equal(b.siteKeys.length, 1)
  t.not(a.siteKeys[0], b.siteKeys[0], 'two installs from one template have different site keys')
  t.equal(await me(two, one.appPassword), 401, 'one install\'s application password is nothing to the other')
})
