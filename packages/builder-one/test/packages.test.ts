/**
 * builder-one/v1 plugins and themes against awkward package sources,
 * through HTTP on a real database and content directory: an upgrade when
 * the source offers nothing newer is refused (the installed version is
 * kept, never replaced by an older one), and a package zip whose entries
 * clash (a file `a` and a file `a/b`) is a 400 with nothing installed.
 */
import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import yazl from 'yazl'
import { registryPackage } from '@cms/registry'
import { scratchDir, testApp } from '@cms/testing'
import { builderOnePackage } from '../src/index.js'
import { sourceDir } from './zips.js'

const O = '/builder-one/v1'

async function zipOf (files: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  for (const [name, data] of Object.entries(files)) zip.addBuffer(Buffer.from(data), name)
  zip.end()
  const chunks: Buffer[] = []
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

t.test('upgrade with nothing newer in the source: 400, the installed version kept', async (t) => {
  const content = await scratchDir('one-packages')
  // The source offers only versions older than the installed one (the seed packages are 0.1.0).
  const source = await sourceDir([['plugin', 'builder', '0.0.5'], ['plugin', 'mailer', '1.0.0']])
  const h = await testApp({ packages: [registryPackage, builderOnePackage], namespaces: ['cms/v2', 'builder-one/v1'], contentDir: content, env: { CMS_PACKAGE_SOURCE: source } })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const version = async (slug: string): Promise<string> => JSON.parse(await readFile(join(content, 'plugins', slug, 'manifest.json'), 'utf8')).version

  const listed = (await h.call('GET', `${O}/plugins`, { as: admin })).body.find((p: any) => p.slug === 'builder')
  t.match(listed, { version: '0.1.0', newVersion: null }, 'no newer version offered')
  const up = await h.call('POST', `${O}/plugins/builder/upgrade`, { as: admin })
  t.same([up.status, up.body.code, up.body.data?.status], [400, 'bad_request', 400], 'refused in the error shape')
  t.equal(await version('builder'), '0.1.0', 'not replaced by the older 0.0.5')

  // Installed at the newest version: upgrading again is refused too, nothing re-installed.
  t.equal((await h.call('POST', `${O}/plugins`, { as: admin, body: { slug: 'mailer' } })).status, 200)
  const again = await h.call('POST', `${O}/plugins/mailer/upgrade`, { as: admin, body: { status: 'active' } })
  t.same([again.status, again.body.code], [400, 'bad_request'])
  const item = (await h.call('GET', `${O}/plugins`, { as: admin })).body.find((p: any) => p.slug === 'mailer')
  t.match(item, { version: '1.0.0', status: 'inactive' }, 'left as it was (not activated either)')

  const log = (await h.call('GET', `${O}/logs`, { as: admin })).body.entries.filter((e: any) => e.operation === 'upgrade')
  t.same(log, [], 'no upgrade was run')
})

t.test('a package whose entries clash (a file and a directory of one name): 400, nothing left behind', async (t) => {
  const content = await scratchDir('one-clash')
  const source = await scratchDir('one-clash-source')
  await mkdir(join(source, 'themes'), { recursive: true })
  await mkdir(join(source, 'plugins'), { recursive: true })
  const manifest = (slug: string): string => JSON.stringify({ name: slug, version: '1.0.0', slug })
  await writeFile(join(source, 'themes/clash.1.0.0.zip'), await zipOf({ 'clash/manifest.json': manifest('clash'), 'clash/a': 'file', 'clash/a/b': 'under the file' }))
  await writeFile(join(source, 'plugins/mailer.1.0.0.zip'), await zipOf({ 'mailer/manifest.json': manifest('mailer'), 'mailer/x/y.txt': 'y', 'mailer/x': 'file' }))
  await writeFile(join(source, 'index.json'), JSON.stringify({ plugins: { mailer: ['1.0.0'] }, themes: { clash: ['1.0.0'] } }))
  const h = await testApp({ packages: [registryPackage, builderOnePackage], namespaces: ['cms/v2', 'builder-one/v1'], contentDir: content, env: { CMS_PACKAGE_SOURCE: source } })
  t.teardown(h.close)
  const admin = await h.caller('administrator')

  const theme = await h.call('POST', `${O}/themes`, { as: admin, body: { slug: 'clash' } })
  t.same([theme.status, theme.body.code, theme.body.data?.status], [400, 'rest_invalid_package', 400], 'a file, then a file under it')
  const plugin = await h.call('POST', `${O}/plugins`, { as: admin, body: { slug: 'mailer' } })
  t.same([plugin.status, plugin.body.code], [400, 'rest_invalid_package'], 'a file under a name, then a file of that name')
  t.notOk(existsSync(join(content, 'themes/clash')), 'no theme directory')
  t.notOk(existsSync(join(content, 'plugins/mailer')), 'no plugin directory')
  t.same((await readdir(join(content, 'themes'))).sort(), ['theme-a'], 'no staging directory left')
  t.same((await readdir(join(content, 'plugins'))).filter((n) => n.startsWith('.')), [], 'no staging directory left')
})
