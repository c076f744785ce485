// `cms seed demo` and `cms status`, in-process on a test store.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { openTestStore } from '@cms/store/testing'
import { inProcess } from './helpers.js'

const db = await openTestStore()
const contentDir = mkdtempSync(join(tmpdir(), 'cms-seed-'))
t.teardown(async () => {
  await db.close()
  rmSync(contentDir, { recursive: true, force: true })
})
// PORT 1: nothing answers there, so the status says the service is not running.
const { exec } = inProcess(db, { CMS_CONTENT_DIR: contentDir, CMS_BASE_URL: 'http://cms.test', PORT: '1', CMS_DATA_DIR: contentDir })

t.test('seed demo adds a small site once', async (t) => {
  const migrated = await exec(['migrate'])
  t.equal(migrated.code, 0, migrated.stderr)
  const seeded = await exec(['seed', 'demo', '--json'])
  t.equal(seeded.code, 0, seeded.stderr)
  const out = JSON.parse(seeded.stdout)
  t.same(Object.keys(out.users), ['demo-administrator', 'demo-editor', 'demo-author', 'demo-contributor', 'demo-subscriber'])
  t.same([out.categories.length, out.tags.length, out.media.length, out.posts.length, out.pages.length], [3, 4, 2, 6, 2])
  const byStatus = await db.execute<{ type: string, status: string, n: number }>("select type, status, count(*)::int as n from posts where type in ('post', 'page', 'attachment') group by 1, 2 order by 1, 2")
  t.same(byStatus, [
    { type: 'attachment', status: 'inherit', n: 2 },
    { type: 'page', status: 'publish', n: 2 },
    { type: 'post', status: 'pending', n: 1 },
    { type: 'post', status: 'publish', n: 5 }
  ])
  // The images got the sizes an upload gets (the thumbnail among them).
  const meta = await db.execute<{ v: string }>("select value::text as v from post_meta where key = '_cms_attachment_metadata'")
  t.equal(meta.length, 2)
  for (const m of meta) t.match(m.v, /thumbnail/)
  const again = await exec(['seed', 'demo'])
  t.equal(again.code, 1)
  t.match(again.stderr, /there already/)
  const wrong = await exec(['seed', 'everything'])
  t.equal(wrong.code, 2)
})

t.test('status says what runs and on what', async (t) => {
  const status = await exec(['status', '--json'])
  t.equal(status.code, 0, status.stderr)
  const out = JSON.parse(status.stdout)
  t.equal(out.service.running, false)
  t.equal(out.database.kind, 'embedded')
  t.match(out.database.reached, /directly/)
  t.equal(out.profile.name, 'A')
  t.ok(out.profile.namespaces.includes('cms/v2'))
  t.ok(out.migrations.cms_core > 0)
  t.ok(out.packages.some((p: { name: string }) => p.name === '@cms/core'))
  t.equal(out.users, 5)
  const text = await exec(['status'])
  t.match(text.stdout, /^service {5}not answering at http:\/\/127\.0\.0\.1:1$/m)
})

t.test('status reads the packages\' manifests, not their code', async (t) => {
  // A deployment's own package whose module throws when imported: status
  // names packages from their package.json alone, so it still answers.
  const parent = mkdtempSync(join(tmpdir(), 'cms-status-pkgs-'))
  t.teardown(() => rmSync(parent, { recursive: true, force: true }))
  mkdirSync(join(parent, 'broken', 'src'), { recursive: true })
  writeFileSync(join(parent, 'broken', 'package.json'), JSON.stringify({ name: '@site/broken', type: 'module', cms: { plugin: './src/index.js', namespaces: ['cms/v2'] } }))
  writeFileSync(join(parent, 'broken', 'src', 'index.js'), 'throw new Error("imported")\n')
  const own = inProcess(db, { CMS_CONTENT_DIR: contentDir, PORT: '1', CMS_DATA_DIR: contentDir, CMS_PACKAGES_PATH: parent })
  const status = await own.exec(['status', '--json'])
  t.equal(status.code, 0, status.stderr)
  const out = JSON.parse(status.stdout)
  t.same(out.packages.find((p: { name: string }) => p.name === '@site/broken'), { name: '@site/broken', namespaces: ['cms/v2'] })
  t.ok(out.packages.some((p: { name: string }) => p.name === '@cms/core'))
  const missing = await inProcess(db, { CMS_DATA_DIR: contentDir, PORT: '1', CMS_PACKAGES_PATH: join(parent, 'nowhere') }).exec(['status'])
  t.not(missing.code, 0)
  t.match(missing.stderr, /no such directory of packages/)
})
