/**
 * test-all: alone (it measures its own process's CPU time: scripts/test-run.mjs runs it in a
 * process of its own, not in a batch where another file's leftovers could add to the figure).
 * resolveInside against a real directory tree with real symbolic links
 * (inside the root, leaving it, dangling, chained).
 */
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { RestError } from '@cms/rest'
import { resolveInside } from '../src/platform/paths.js'

async function refusal (root: string, path: string): Promise<RestError | null> {
  try {
    await resolveInside(root, path)
    return null
  } catch (err) {
    if (err instanceof RestError) return err
    throw err
  }
}

t.test('resolveInside', async (t) => {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'cms-paths-')))
  t.teardown(async () => { await rm(base, { recursive: true, force: true }) })
  const root = join(base, 'content')
  const outside = join(base, 'outside')
  await mkdir(join(root, 'uploads', '2026'), { recursive: true })
  await mkdir(outside)
  await writeFile(join(outside, 'secret.txt'), 'secret')
  await writeFile(join(root, 'uploads', 'a.txt'), 'a')
  await symlink(join(root, 'uploads'), join(root, 'media'))            // inside -> inside
  await symlink('../outside', join(root, 'escape'))                     // relative, leaves the root
  await symlink(join(outside, 'secret.txt'), join(root, 'uploads', 'secret.txt'))
  await symlink(join(root, 'nowhere'), join(root, 'dangling'))
  await symlink(join(root, 'escape'), join(root, 'chain'))              // inside -> a link that leaves
  await symlink(root, join(base, 'root-link'))                          // the root itself reached by a link

  t.test('paths inside the root', async (t) => {
    t.equal(await resolveInside(root, 'uploads/a.txt'), join(root, 'uploads', 'a.txt'))
    t.equal(await resolveInside(root, './uploads//2026/'), join(root, 'uploads', '2026'))
    t.equal(await resolveInside(root, ''), root)
    t.equal(await resolveInside(root, 'uploads/2026/new/file.jpg'), join(root, 'uploads', '2026', 'new', 'file.jpg'), 'parts that do not exist yet')
    t.equal(await resolveInside(root, 'media/a.txt'), join(root, 'uploads', 'a.txt'), 'a link that stays inside resolves to its target')
    t.equal(await resolveInside(root, 'a..b/c...'), join(root, 'a..b', 'c...'), 'dots inside a name are a name')
    t.equal(await resolveInside(join(base, 'root-link'), 'uploads/a.txt'), join(root, 'uploads', 'a.txt'), 'a root given through a link')
  })

  t.test('refused with 400 rest_invalid_path', async (t) => {
    const cases: Array<[string, RegExp]> = [
      ['../outside/secret.txt', /\.\./],
      ['uploads/../../outside', /\.\./],
      ['uploads\\..\\..\\outside', /\.\./],
      ['..', /\.\./],
      ['/etc/passwd', /absolute/],
      ['\\\\server\\share', /absolute/],
      ['C:\\Windows', /absolute/],
      ['uploads/a.txt\0.jpg', /NUL/],
      ['escape/secret.txt', /outside/],
      ['escape', /outside/],
      ['uploads/secret.txt', /outside/],
      ['chain/secret.txt', /outside/],
      ['dangling', /leads nowhere/],
      ['dangling/file', /leads nowhere/]
    ]
    for (const [path, why] of cases) {
      const err = await refusal(root, path)
      t.ok(err !== null, JSON.stringify(path))
      t.same([err?.status, err?.code], [400, 'rest_invalid_path'], JSON.stringify(path))
      t.match(err?.message, why, JSON.stringify(path))
    }
  })

  t.test('linear in the length of the path', async (t) => {
    const long = 'a/'.repeat(20_000) + 'b'
    // CPU time of the process (its file system threads too), not wall time: load stretches the latter.
    const started = process.cpuUsage()
    t.equal(await resolveInside(root, long), join(root, long), 'a long path that does not exist')
    t.equal(await refusal(root, `${'x/'.repeat(50_000)}..`).then((e) => e?.code), 'rest_invalid_path')
    const used = process.cpuUsage(started)
    const ms = (used.user + used.system) / 1000
    t.ok(ms < 2000, `${ms.toFixed(0)} ms of CPU for both`)
  })
})
