/**
 * Part 5 (in part): file_size through the media storage, and
 * import/{plugin}/{type} from another SEO plugin's post meta, through HTTP.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { testApp } from '@cms/testing'
import { seoPackage } from '../src/index.js'

t.test('file_size and import', async (t) => {
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

  t.test('import from another SEO plugin', async (t) => {
    const none = await h.call('POST', '/seo/v1/import/aioseo/posts', { as: admin })
    t.same([none.status, none.body.code], [404, 'rest_no_route'], 'no data of that plugin: importer not found')
    t.same((await h.call('POST', '/seo/v1/import/nope/posts', { as: admin })).status, 400, 'unknown plugin')
    t.same((await h.call('POST', '/seo/v1/import/aioseo/nope', { as: admin })).status, 400, 'unknown type')
    t.same((await h.call('POST', '/seo/v1/import/aioseo/general_settings', { as: admin })).status, 404, 'a known type without data here')
    t.equal((await h.call('POST', '/seo/v1/import/aioseo/posts', { as: editor })).status, 403)

    const ids: number[] = []
    for (let i = 0; i < 30; i++) ids.push((await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: `P${i}`, status: 'publish' } })).body.id)
    const kept = ids[1]!
    await h.call('POST', `/cms/v2/posts/${kept}`, { as: admin, body: { meta: { _seo_title: 'Mine' } } })
    await h.store.execute(`insert into post_meta (post_id, key, value)
      select id, '_aioseo_title', to_jsonb('Imported <script>x</script>title ' || id) from posts where id = any(array[${ids.join(',')}])
      union all select id, '_aioseo_description', to_jsonb('Description ' || id) from posts where id = any(array[${ids.join(',')}])`)

    const first = await h.call('POST', '/seo/v1/import/aioseo/posts', { as: admin })
    t.equal(first.status, 200)
    t.equal(first.body.objects.length, 25)
    t.equal(first.body.next_url, 'seo/v1/import/aioseo/posts', 'a route path, no host')
    t.same(first.body.objects[0], { id: ids[0], imported: ['_seo_title', '_seo_metadesc'] })
    t.same(first.body.objects[1], { id: kept, imported: ['_seo_metadesc'] }, 'an existing SEO title is kept')
    const second = await h.call('POST', '/seo/v1/import/aioseo/posts', { as: admin })
    t.same([second.body.objects.length, second.body.next_url], [5, false])
    const meta = (await h.call('GET', `/cms/v2/posts/${ids[0]}`, { as: admin, query: { context: 'edit' } })).body.meta
    t.same([meta._seo_title, meta._seo_metadesc], [`Imported title ${ids[0]}`, `Description ${ids[0]}`], 'cleaned as user text')
    t.equal((await h.call('GET', `/cms/v2/posts/${kept}`, { as: admin, query: { context: 'edit' } })).body.meta._seo_title, 'Mine')
    const third = await h.call('POST', '/seo/v1/import/aioseo/posts', { as: admin })
    t.same(third.body, { objects: [], next_url: false }, 'done')
  })
})
