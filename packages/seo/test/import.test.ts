/**
 * import/{plugin}/{type} through HTTP on a site migrated from the source
 * SEO plugin (`seo-a`): its post meta seeded through cms/v2 (registered
 * meta), its settings through the package options; each importer in
 * batches with `next_url` until false, idempotent when re-run, a value set
 * here kept; validate_data, cleanup, the conflicting plugins (named, and
 * deactivated where the deployment has the package registry); unknown
 * importers and absent data 404; the permission prober over the route.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { checkPermissions, testApp } from '@cms/testing'
import { packageRegistry, registryPackage } from '@cms/registry'
import { seoPackage } from '../src/index.js'

const H = 'http://cms.test'

t.test('import from the source SEO plugin', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'seo-import-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const h = await testApp({ packages: [seoPackage], namespaces: ['cms/v2', 'seo/v1'], contentDir: dir })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const editor = await h.caller('editor')
  const options = h.platform.services.options
  const run = async (type: string, plugin = 'seo-a'): Promise<{ status: number, body: any }> => await h.call('POST', `/seo/v1/import/${plugin}/${type}`, { as: admin })
  const meta = async (id: number): Promise<Record<string, string>> => (await h.call('GET', `/cms/v2/posts/${id}`, { as: admin, query: { context: 'edit' } })).body.meta

  t.test('nothing to import: every importer 404s; unknown ones too', async (t) => {
    for (const type of ['posts', 'general_settings', 'posttype_default_settings', 'taxonomy_settings', 'default_archive_settings', 'custom_archive_settings', 'validate_data', 'cleanup', 'nope', 'constructor']) {
      const res = await run(type)
      t.same([res.status, res.body.code, res.body.data.status], [404, 'rest_no_route', 404], type)
    }
    t.equal((await run('posts', 'nope')).status, 404, 'unknown plugin')
    t.equal((await run('deactivation', 'conflicting-plugins')).status, 404, 'no conflicting plugin installed')
    t.equal((await h.call('POST', '/seo/v1/import/seo-a/posts', { as: editor })).status, 403)
    t.equal((await h.call('POST', '/seo/v1/import/seo-a/posts')).status, 401)
  })

  t.test('posts: in batches, a value set here kept, idempotent', async (t) => {
    const ids: number[] = []
    for (let i = 0; i < 30; i++) {
      const res = await h.call('POST', '/cms/v2/posts', {
        as: admin,
        body: {
          title: `P${i}`,
          status: 'publish',
          meta: {
            _seo_a_title: `#post_title #separator_sa #site_title <script>x</script>${i}`,
            _seo_a_description: `Description ${i}`,
            _seo_a_keyphrases: i === 3 ? '{not json' : JSON.stringify({ focus: { keyphrase: ` boots ${i} ` }, additional: [] }),
            _seo_a_og_title: `Shared ${i}`,
            _seo_a_canonical_url: `https://example.com/p/${i}`,
            _seo_a_robots_noindex: i === 4 ? '1' : '0'
          }
        }
      })
      t.equal(res.status, 201)
      ids.push(res.body.id)
    }
    const kept = ids[1]!
    t.equal((await h.call('POST', `/cms/v2/posts/${kept}`, { as: admin, body: { meta: { _seo_title: 'Mine' } } })).status, 200)
    t.equal((await meta(ids[0]!))._seo_a_description, 'Description 0', 'the source meta reads back through cms/v2')

    const first = await run('posts')
    t.equal(first.status, 200)
    t.equal(first.body.objects.length, 25)
    t.equal(first.body.next_url, 'seo/v1/import/seo-a/posts', 'a route path, no host')
    t.same(first.body.objects[0], { id: ids[0], imported: ['_seo_title', '_seo_metadesc', '_seo_opengraph-title', '_seo_canonical', '_seo_focuskw'] })
    t.same(first.body.objects[1].imported.includes('_seo_title'), false, 'an SEO title set here is kept')
    t.same(first.body.objects[3].skipped, ['_seo_a_keyphrases'], 'keyphrases that are not the expected JSON are skipped and named')
    const m0 = await meta(ids[0]!)
    t.same([m0._seo_title, m0._seo_metadesc, m0._seo_focuskw, m0._seo_canonical], ['%%title%% %%sep%% %%sitename%% 0', 'Description 0', 'boots 0', 'https://example.com/p/0'],
      'smart tags become variables; markup cleaned as user text')
    t.equal((await meta(ids[4]!))['_seo_meta-robots-noindex'], '1')
    t.equal((await meta(kept))._seo_title, 'Mine')
    // The indexables follow in the same request: the bulk editor lists the imported values at once.
    const listed = await h.call('GET', '/seo/v1/bulk_editor/posts', { as: admin, query: { content_type: 'post', search: 'boots 2' } })
    t.match(listed.body.posts.find((p: any) => p.id === ids[2]), { focus_keyphrase: 'boots 2', social_title: 'Shared 2' })

    const second = await run('posts')
    t.same([second.body.objects.length, second.body.next_url], [5, 'seo/v1/import/seo-a/posts'])
    const third = await run('posts')
    t.same(third.body, { objects: [], next_url: false }, 'done: the batch was empty')
    t.same((await run('posts')).body, { objects: [], next_url: false }, 're-run: nothing repeated')

    // A post migrated later is picked up; posts done are not read again.
    const late = (await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Late', status: 'draft', meta: { _seo_a_description: 'Late one' } } })).body.id
    const more = await run('posts')
    t.same(more.body.objects, [{ id: late, imported: ['_seo_metadesc'] }])
  })

  t.test('settings: general, post types, taxonomies, archives; once each', async (t) => {
    await options.write('seo_a_options', {
      searchAppearance: {
        global: {
          separator: '&raquo;',
          siteTitle: '#site_title #separator_sa #tagline',
          metaDescription: 'Boots for #current_year',
          schema: { siteRepresents: 'organization', organizationName: 'Boot Co', organizationLogo: 'https://cdn.example/logo.png' }
        },
        archives: {
          author: { title: '#author_name #separator_sa #site_title', show: false },
          date: { title: '#archive_date', show: true },
          search: { title: 'Search: #search_term' }
        }
      },
      social: { profiles: { urls: { facebookPageUrl: 'https://social-a.example/bootco', twitterUrl: 'https://x.com/bootco', instagramUrl: 'https://pics.example/bootco', myspaceUrl: 'not a url' } } }
    })
    await options.write('seo_a_options_dynamic', {
      searchAppearance: {
        postTypes: { post: { title: '#post_title | #site_title', metaDescription: '#post_excerpt', advanced: { robotsMeta: { default: false, noindex: true } } }, page: { show: true } },
        taxonomies: { category: { title: '#taxonomy_title topics', show: false } },
        archives: { product: { title: 'All products' } }
      }
    })
    const general = await run('general_settings')
    t.equal(general.status, 200)
    t.same(general.body.next_url, 'seo/v1/import/seo-a/general_settings')
    t.ok(general.body.objects.includes('/searchAppearance/global/siteTitle'))
    t.notOk(general.body.objects.includes('/social/profiles/urls/myspaceUrl'), 'an invalid URL is left out')
    t.same((await run('general_settings')).body, { objects: [], next_url: false }, 'then done')
    for (const type of ['posttype_default_settings', 'taxonomy_settings', 'default_archive_settings', 'custom_archive_settings']) {
      const res = await run(type)
      t.equal(res.status, 200, type)
      t.not(res.body.next_url, false, type)
      t.same((await run(type)).body, { objects: [], next_url: false }, `${type} runs once`)
    }
    const titles = await options.read('seo_titles') as Record<string, string>
    t.match(titles, {
      separator: '»',
      'title-home': '%%sitename%% %%sep%% %%sitedesc%%',
      'metadesc-home': 'Boots for %%currentyear%%',
      'title-post': '%%title%% | %%sitename%%',
      'metadesc-post': '%%excerpt%%',
      'noindex-post': '1',
      'noindex-page': '0',
      'title-tax-category': '%%term_title%% topics',
      'noindex-tax-category': '1',
      'title-author': '%%name%% %%sep%% %%sitename%%',
      'noindex-author': '1',
      'title-archive': '%%date%%',
      'noindex-archive': '0',
      'title-search': 'Search: %%searchphrase%%',
      'title-ptarchive-product': 'All products'
    })
    // What the head shows: the imported templates, representation and profiles.
    const post = (await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Hiking', status: 'publish' } })).body
    const head = await h.call('GET', '/seo/v1/get_head', { query: { url: post.link } })
    t.match(head.body.json.title, /^Hiking \| /)
    t.match(head.body.json.robots, { index: 'noindex' })
    const graph = (await h.call('GET', '/seo/v1/get_head', { query: { url: `${H}/` } })).body.json
    const org = graph.schema['@graph'].find((n: any) => n['@type'] === 'Organization')
    t.equal(org.name, 'Boot Co')
    t.same(org.sameAs, ['https://social-a.example/bootco', 'https://x.com/bootco', 'https://pics.example/bootco'])
  })

  t.test('validate_data, then cleanup', async (t) => {
    const valid = await run('validate_data')
    t.same([valid.status, valid.body], [200, { objects: { validated: true }, next_url: 'seo/v1/import/seo-a/validate_data' }])
    t.same((await run('validate_data')).body, { objects: [], next_url: false })

    const cleaned = await run('cleanup')
    t.equal(cleaned.status, 200)
    t.same(cleaned.body.objects, /* meta rows: six keys on 30 posts and one on the late one */ { metadata_cleanup: 181, settings_cleanup: 2 })
    t.same((await run('cleanup')).body, { objects: [], next_url: false })
    const left = await meta((await h.call('GET', '/cms/v2/posts', { as: admin, query: { search: 'P0' } })).body[0].id)
    t.equal(left._seo_a_title, '', 'the source meta is gone')
    t.not(left._seo_title, '', 'what was imported stays')
    t.same(await options.read('seo_a_options'), {})
  })

  t.test('validation failure names the problem', async (t) => {
    const h2 = await testApp({ packages: [seoPackage], namespaces: ['cms/v2', 'seo/v1'], contentDir: dir })
    t.teardown(h2.close)
    const admin2 = await h2.caller('administrator')
    await h2.platform.services.options.write('seo_a_options', { searchAppearance: { global: 'oops' } })
    const res = await h2.call('POST', '/seo/v1/import/seo-a/validate_data', { as: admin2 })
    t.same([res.status, res.body.code, res.body.data.problems], [400, 'seo_error_validation', ['seo_a_options.searchAppearance.global is not an object']])
    t.same((await h2.call('POST', '/seo/v1/import/seo-a/general_settings', { as: admin2 })).status, 404, 'nothing usable to import')
  })

  t.test('conflicting plugins are named', async (t) => {
    mkdirSync(join(dir, 'plugins', 'seo-a'), { recursive: true })
    writeFileSync(join(dir, 'plugins', 'seo-a', 'manifest.json'), '{"name": "SEO A", "version": "4.0.0"}')
    const res = await run('deactivation', 'conflicting-plugins')
    t.same([res.status, res.body], [200, { objects: [{ slug: 'seo-a', type: 'plugin' }], next_url: false }])
  })

  t.test('permissions', async (t) => {
    t.equal(await checkPermissions(t, h, { only: (target) => target.key.includes('/seo/v1/import/') }), 1)
  })
})

t.test('with the package registry, the conflicting plugins active are deactivated', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'seo-conflict-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  for (const slug of ['seo-b', 'seo-c']) {
    mkdirSync(join(dir, 'plugins', slug), { recursive: true })
    writeFileSync(join(dir, 'plugins', slug, 'manifest.json'), JSON.stringify({ name: slug, slug, version: '2.0.0' }))
  }
  const h = await testApp({ packages: [registryPackage, seoPackage], namespaces: ['cms/v2', 'seo/v1'], contentDir: dir })
  t.teardown(h.close)
  const registry = h.platform.service(packageRegistry)!
  await registry.activate('plugin', 'seo-b', { actor: { userId: 1 } })
  const admin = await h.caller('administrator')
  const run = async (): Promise<{ status: number, body: any }> => await h.call('POST', '/seo/v1/import/conflicting-plugins/deactivation', { as: admin })
  const res = await run()
  t.same([res.status, res.body], [200, { objects: [{ slug: 'seo-b', type: 'plugin' }], next_url: false }], 'the active one, not the inactive seo-c')
  t.equal((await registry.get('plugin', 'seo-b'))?.status, 'inactive', 'deactivated')
  const log = await registry.log.list({ limit: 1 })
  t.match(log.entries[0], { operation: 'deactivate', slug: 'seo-b', userId: admin.id }, 'in the operations log, as the caller')
  t.equal((await run()).status, 404, 'none left active: nothing to deactivate')
})
