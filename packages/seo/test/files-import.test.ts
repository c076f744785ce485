/**
 * Part 5 (in part): file_size through the media storage, through HTTP
 * (the importers: import.test.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { testApp } from '@cms/testing'
import { seoPackage } from '../src/index.js'

t.test('file_size', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'seo-files-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  mkdirSync(join(dir, 'uploads', '2026', '11'), { recursive: true })
  writeFileSync(join(dir, 'uploads', '2026', '11', 'boots.png'), Buffer.alloc(4821, 1))
  writeFileSync(join(dir, 'uploads', '2026', '11', 'empty.png'), '')
  const h = await testApp({ packages: [seoPackage], namespaces: ['cms/v2', 'seo/v1'], contentDir: dir })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const editor = await h.caller('editor')

  t.test('file_size', async (t) => {
    const size = async (url: string): Promise<{ status: number, body: any }> => await h.call('GET', '/seo/v1/file_size', { as: admin, query: { url } })
    const ok = await size('http://cms.test/cms-content/uploads/2026/11/boots.png')
    t.same([ok.status, ok.body], [200, { type: 'success', size_in_bytes: 4821 }])
    t.same((await size('http://cms.test/cms-content/uploads/2026/11/bo%6Fts.png')).body.size_in_bytes, 4821, 'URL-decoded')
    for (const [url, code] of [
      ['https://elsewhere.example/cms-content/uploads/2026/11/boots.png', 'seo_file_hosted_externally'],
      ['http://cms.test/other/boots.png', 'seo_file_hosted_externally'],
      ['not a url', 'seo_file_hosted_externally'],
      ['http://cms.test/cms-content/uploads/2026/11/missing.png', 'seo_file_size_unknown'],
      ['http://cms.test/cms-content/uploads/2026/11/empty.png', 'seo_file_size_unknown'],
      // The URL parser resolves the dot segments: the path leaves the uploads and is refused as not ours.
      ['http://cms.test/cms-content/uploads/2026/%2e%2e/%2e%2e/etc/passwd', 'seo_file_hosted_externally'],
      ['http://cms.test/cms-content/uploads/..%2f..%2fsecret', 'seo_file_size_unknown']
    ]) {
      const res = await size(url!)
      t.same([res.status, res.body.code], [404, code], String(url))
    }
    t.equal((await h.call('GET', '/seo/v1/file_size', { as: editor, query: { url: 'http://cms.test/x' } })).status, 403)
    t.equal((await h.call('GET', '/seo/v1/file_size', { as: admin })).status, 400, 'url is required')
  })
})
