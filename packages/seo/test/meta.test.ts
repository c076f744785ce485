/**
 * Part 1: the per-post SEO data as cms/v2 post meta (edit context only,
 * validated and sanitized before anything is written) and the package's
 * capability.
 */
import t from 'tap'
import { testApp } from '@cms/testing'
import { seoPackage } from '../src/index.js'

t.test('SEO meta on cms/v2 posts and pages', async (t) => {
  const h = await testApp({ packages: [seoPackage], namespaces: ['cms/v2', 'seo/v1'] })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const author = await h.caller('author')

  const made = await h.call('POST', '/cms/v2/posts', {
    as: author,
    query: { context: 'edit' },
    body: { title: 'Boots', content: 'Warm boots.', status: 'publish', meta: { _seo_focuskw: 'boots <b>x</b>', _seo_title: '%%title%% %%sep%% %%sitename%%', '_seo_meta-robots-noindex': '1', _seo_canonical: 'javascript:alert(1)' } }
  })
  t.equal(made.status, 201)
  const id = made.body.id
  const edit = await h.call('GET', `/cms/v2/posts/${id}`, { as: author, query: { context: 'edit' } })
  t.equal(edit.body.meta._seo_focuskw, 'boots x', 'tags stripped for a writer without unfiltered_html')
  t.equal(edit.body.meta._seo_title, '%%title%% %%sep%% %%sitename%%')
  t.equal(edit.body.meta['_seo_meta-robots-noindex'], '1')
  t.equal(edit.body.meta._seo_canonical, '', 'a javascript: URL is dropped')
  t.equal(edit.body.meta._seo_metadesc, '', 'an unset key reads as its default')

  const view = await h.call('GET', `/cms/v2/posts/${id}`)
  t.notOk('_seo_focuskw' in (view.body.meta ?? {}), 'not in the view context')

  const bad = await h.call('POST', `/cms/v2/posts/${id}`, { as: author, body: { title: 'Changed', meta: { '_seo_meta-robots-noindex': 'yes', _seo_focuskw: 'other' } } })
  t.same([bad.status, bad.body.code], [400, 'rest_not_in_enum'], 'the core reports the enum failure')
  const after = await h.call('GET', `/cms/v2/posts/${id}`, { as: author, query: { context: 'edit' } })
  t.same([after.body.title.raw, after.body.meta._seo_focuskw], ['Boots', 'boots x'], 'an invalid value writes nothing')

  const page = await h.call('POST', '/cms/v2/pages', { as: admin, query: { context: 'edit' }, body: { title: 'About', status: 'publish', meta: { _seo_metadesc: 'About us' } } })
  t.equal(page.status, 201)
  t.equal(page.body.meta._seo_metadesc, 'About us', 'pages carry the keys too')

  const schema = await h.call('OPTIONS', '/cms/v2/posts')
  t.ok(schema.body.schema.properties.meta.properties._seo_focuskw, 'the keys are in the item schema')

  t.ok(h.platform.services.roles.capabilitiesOf('administrator').has('manage_seo_options'), 'administrators hold manage_seo_options')
  t.notOk(h.platform.services.roles.capabilitiesOf('editor').has('manage_seo_options'), 'editors do not')
})
