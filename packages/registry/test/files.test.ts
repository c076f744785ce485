/**
 * Package files served under /cms-content/plugins|themes/<slug>/: assets of
 * active packages only, with their type, ranges and validators, and never a
 * file outside the package's directory.
 */
import { readFileSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { definePackage } from '@cms/core'
import { scratchDir, testApp } from '@cms/testing'
import { packageRegistry, registryPackage, type PackageRegistry } from '../src/index.js'

// The security harness's traversal list (apps/gateway/test/data/traversal.txt, read from this repository).
const TRAVERSAL = readFileSync(fileURLToPath(new URL('../../../apps/gateway/test/data/traversal.txt', import.meta.url)), 'utf8')
  .split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'))

const CANARY = 'canary-outside-the-package'

t.test('package files', async (t) => {
  const content = await scratchDir('pkgfiles')
  // A plugin nobody activated yet (not a seed package: inactive), and a file beside the packages.
  await mkdir(join(content, 'plugins/extra/assets'), { recursive: true })
  await writeFile(join(content, 'plugins/extra/manifest.json'), JSON.stringify({ name: 'Extra', version: '1.0.0', slug: 'extra' }))
  await writeFile(join(content, 'plugins/extra/assets/app.js'), 'console.log("extra")\n')
  await writeFile(join(content, 'plugins/extra/evil.php'), '<?php echo 1;')
  await writeFile(join(content, 'plugins/secret.css'), CANARY)
  await writeFile(join(content, 'secret.css'), CANARY)
  let registry: PackageRegistry | undefined
  const probe = definePackage({ name: 'probe', dependencies: ['@cms/registry'], namespaces: ['probe/v1'], contribute (api) { registry = api.require(packageRegistry) } })
  const h = await testApp({ packages: [registryPackage, probe], namespaces: ['cms/v2', 'probe/v1'], contentDir: content })
  t.teardown(h.close)
  await registry!.list() // the seed packages are written on first use
  const get = async (url: string, headers: Record<string, string> = {}): Promise<Awaited<ReturnType<typeof h.app.inject>>> => await h.app.inject({ method: 'GET', url, headers })

  t.test('an asset of the active theme, with its type, validators and ranges', async (t) => {
    const css = await readFile(join(content, 'themes/theme-a/style.css'))
    const res = await get('/cms-content/themes/theme-a/style.css')
    t.equal(res.statusCode, 200)
    t.equal(res.headers['content-type'], 'text/css; charset=utf-8')
    t.equal(res.headers['x-content-type-options'], 'nosniff')
    t.equal(res.headers['accept-ranges'], 'bytes')
    t.ok(res.rawPayload.equals(css), 'the file as it is on disk')
    const etag = res.headers.etag as string
    t.ok(etag, 'an ETag')
    t.equal((await get('/cms-content/themes/theme-a/style.css', { 'if-none-match': etag })).statusCode, 304)
    const part = await get('/cms-content/themes/theme-a/style.css', { range: 'bytes=2-9' })
    t.same([part.statusCode, part.headers['content-range'], part.rawPayload.length], [206, `bytes 2-9/${css.length}`, 8])
    t.ok(part.rawPayload.equals(css.subarray(2, 10)))
    const past = await get('/cms-content/themes/theme-a/style.css', { range: `bytes=${css.length}-` })
    t.same([past.statusCode, past.headers['content-range']], [416, `bytes */${css.length}`])
  })

  t.test('an inactive package serves nothing until it is activated', async (t) => {
    t.equal((await get('/cms-content/plugins/extra/assets/app.js')).statusCode, 404)
    await registry!.activate('plugin', 'extra', { actor: { userId: 0 } })
    const res = await get('/cms-content/plugins/extra/assets/app.js')
    t.same([res.statusCode, res.headers['content-type'], res.body], [200, 'text/javascript; charset=utf-8', 'console.log("extra")\n'])
    await registry!.deactivate('plugin', 'extra', { actor: { userId: 0 } })
    t.equal((await get('/cms-content/plugins/extra/assets/app.js')).statusCode, 404)
    await registry!.activate('plugin', 'extra', { actor: { userId: 0 } })
  })

  t.test('only allowed assets: no .php, no manifest, no directory listing, no unknown package', async (t) => {
    for (const path of ['plugins/extra/evil.php', 'plugins/extra/manifest.json', 'plugins/extra/assets/', 'plugins/extra/assets', 'plugins/extra/', 'themes/theme-a/',
      'themes/theme-a/missing.css', 'plugins/nothere/app.js', 'plugins/Extra/assets/app.js', 'themes/extra/assets/app.js']) {
      const res = await get(`/cms-content/${path}`)
      t.equal(res.statusCode, 404, path)
      t.equal(res.headers['x-content-type-options'], 'nosniff', path)
    }
  })

  t.test('no file outside the package, however the path is encoded', async (t) => {
    const payloads = [...TRAVERSAL, '../secret.css', '..%2fsecret.css', '%2e%2e%2fsecret.css', '%252e%252e%252fsecret.css', '..%252fsecret.css',
      '../../secret.css', 'assets/../../secret.css', 'assets%2f..%2f..%2fsecret.css', 'assets%252f..%252f..%252fsecret.css']
    for (const payload of payloads) {
      for (const base of ['/cms-content/plugins/extra/', '/cms-content/themes/theme-a/', '/cms-content/plugins/']) {
        const res = await get(base + payload)
        t.ok(res.statusCode >= 400 && res.statusCode < 500, `${base}${payload}: ${res.statusCode}`)
        t.notOk(res.body.includes(CANARY) || res.body.includes('root:'), `${base}${payload}: nothing from outside`)
      }
    }
    // The same file reached the right way is served: the refusals above are about the path.
    t.equal((await get('/cms-content/plugins/extra/assets/app.js')).statusCode, 200)
  })
})
