/**
 * configuration/* through HTTP: the site representation and the social
 * profiles reach get_head's JSON-LD (Organization or Person, logo,
 * sameAs) and its article:publisher / twitter:site; invalid values are
 * named in the 400 and nothing is saved; check_capability, enable_tracking
 * and the wizard's state; each route refuses callers without
 * manage_seo_options.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { testApp } from '@cms/testing'
import { seoPackage } from '../src/index.js'

const PNG = readFileSync(new URL('./fixtures/social-1200x630.png', import.meta.url))
const H = 'http://cms.test'

t.test('configuration', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'seo-config-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const h = await testApp({ packages: [seoPackage], namespaces: ['cms/v2', 'seo/v1'], contentDir: dir })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const editor = await h.caller('editor')
  const author = await h.caller('author')
  const graph = async (url = `${H}/`): Promise<{ json: any, nodes: any[] }> => {
    const res = await h.call('GET', '/seo/v1/get_head', { query: { url } })
    t.equal(res.status, 200, `head of ${url}`)
    return { json: res.body.json, nodes: res.body.json.schema['@graph'] }
  }
  const upload = await h.app.inject({
    method: 'POST',
    url: '/cms-json/cms/v2/media',
    headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="logo.png"', authorization: admin.headers.authorization! },
    payload: PNG
  })
  t.equal(upload.statusCode, 201)
  const logo = JSON.parse(upload.body)

  t.test('site representation: a company with a logo, then a person', async (t) => {
    const set = await h.call('POST', '/seo/v1/configuration/site_representation', { as: admin, body: { company_or_person: 'company', company_name: 'Boot Co', company_logo_id: logo.id, description: 'We make boots' } })
    t.same([set.status, set.body], [200, { success: true, status: 200 }])
    let org = (await graph()).nodes.find((n) => n['@type'] === 'Organization')
    t.equal(org.name, 'Boot Co')
    t.equal(org.description, 'We make boots')
    t.equal(org.logo.url, logo.source_url, 'the logo by media id')

    await h.call('POST', '/seo/v1/configuration/site_representation', { as: admin, body: { company_or_person: 'company', company_logo_id: 0, company_logo: 'https://cdn.example/logo.png' } })
    org = (await graph()).nodes.find((n) => n['@type'] === 'Organization')
    t.equal(org.logo.url, 'https://cdn.example/logo.png', 'the logo by URL when no media id')
    t.equal(org.name, 'Boot Co', 'fields not sent are kept')

    const person = await h.call('POST', '/seo/v1/configuration/site_representation', { as: admin, body: { company_or_person: 'person', company_or_person_user_id: author.id } })
    t.equal(person.status, 200)
    const nodes = (await graph()).nodes
    const website = nodes.find((n) => n['@type'] === 'WebSite')
    const publisher = nodes.find((n) => n['@id'] === website.publisher['@id'])
    t.same(publisher['@type'], ['Person', 'Organization'], 'the person is the publisher')
    t.notOk(nodes.some((n) => n['@type'] === 'Organization'), 'no Organization any more')

    const bad = async (body: Record<string, unknown>, code: string, why: string): Promise<void> => {
      const res = await h.call('POST', '/seo/v1/configuration/site_representation', { as: admin, body })
      t.same([res.status, res.body.code, typeof res.body.data?.status], [400, code, 'number'], why)
    }
    await bad({ company_or_person: 'person', company_or_person_user_id: 999999 }, 'seo_invalid_user', 'the person must exist')
    await bad({ company_or_person: 'robot' }, 'rest_invalid_param', 'company or person only')
    await bad({}, 'rest_missing_callback_param', 'company_or_person is required')
    await bad({ company_or_person: 'company', company_logo: 'javascript:alert(1)' }, 'seo_invalid_logo', 'a logo URL is http(s)')
    await bad({ company_or_person: 'company', company_logo_id: 999999 }, 'seo_invalid_logo', 'a logo id is an image of the library')
    t.ok((await graph()).nodes.some((n) => [n['@type']].flat().includes('Person')), 'refused writes changed nothing')
    await h.call('POST', '/seo/v1/configuration/site_representation', { as: admin, body: { company_or_person: 'company' } })
  })

  t.test('social profiles: sameAs, article:publisher, twitter:site', async (t) => {
    const set = await h.call('POST', '/seo/v1/configuration/social_profiles', {
      as: admin,
      body: { social_a_site: 'https://social-a.example/bootco', social_b_site: 'https://x.com/bootco', other_social_urls: ['https://video.example/@bootco', ''] }
    })
    t.same([set.status, set.body], [200, { success: true, status: 200 }])
    const post = (await h.call('POST', '/cms/v2/posts', { as: admin, body: { title: 'Boots', status: 'publish' } })).body
    const { json, nodes } = await graph(post.link)
    const org = nodes.find((n) => n['@type'] === 'Organization')
    t.same(org.sameAs, ['https://social-a.example/bootco', 'https://x.com/bootco', 'https://video.example/@bootco'], 'every profile, the empty one dropped')
    t.equal(json.article_publisher, 'https://social-a.example/bootco')
    t.equal(json.twitter_site, '@bootco', 'the handle from the profile URL')

    const refused = await h.call('POST', '/seo/v1/configuration/social_profiles', {
      as: admin,
      body: { social_a_site: 'not a url', social_b_site: 'has spaces in it', other_social_urls: ['https://ok.example/', 'ftp://files.example/'] }
    })
    t.equal(refused.status, 400)
    t.equal(refused.body.code, 'seo_invalid_social_profiles')
    t.same(refused.body.data.failures, ['social_a_site', 'social_b_site', 'other_social_urls-1'], 'each invalid value named')
    t.equal(refused.body.data.status, 400)
    t.same(nodes.find((n) => n['@type'] === 'Organization').sameAs, (await graph()).nodes.find((n) => n['@type'] === 'Organization').sameAs, 'nothing saved')
    const array = await h.call('POST', '/seo/v1/configuration/social_profiles', { as: admin, body: { other_social_urls: { a: 'https://one.example/' } } })
    t.equal(array.status, 400, 'other_social_urls is an array')
  })

  t.test('check_capability, tracking, wizard state', async (t) => {
    t.same((await h.call('GET', '/seo/v1/configuration/check_capability', { as: admin, query: { user_id: author.id } })).body, { success: true, status: 200 })
    const missing = await h.call('GET', '/seo/v1/configuration/check_capability', { as: admin, query: { user_id: 999999 } })
    t.same([missing.status, missing.body.code], [403, 'seo_cannot_edit_user'])
    t.equal((await h.call('GET', '/seo/v1/configuration/check_capability', { as: admin })).status, 400, 'user_id required')

    t.same((await h.call('POST', '/seo/v1/configuration/enable_tracking', { as: admin, body: { tracking: true } })).body, { success: true, status: 200 })
    const options = h.platform.services.options
    t.same([await options.read('seo_tracking'), await options.read('seo_toggled_tracking')], [true, true])
    t.equal((await h.call('POST', '/seo/v1/configuration/enable_tracking', { as: admin, body: { tracking: 'maybe' } })).status, 400)

    t.same((await h.call('GET', '/seo/v1/configuration/get_configuration_state', { as: admin })).body, { success: true, status: 200, data: [] })
    await h.call('POST', '/seo/v1/configuration/save_configuration_state', { as: admin, body: { finishedSteps: ['representation', 'socialProfiles'] } })
    t.same((await h.call('GET', '/seo/v1/configuration/get_configuration_state', { as: admin })).body.data, ['representation', 'socialProfiles'])
    t.equal(await options.read('seo_first_time_install'), true, 'two steps: not finished')
    await h.call('POST', '/seo/v1/configuration/save_configuration_state', { as: admin, body: { finishedSteps: ['representation', 'socialProfiles', 'personalPreferences'] } })
    t.equal(await options.read('seo_first_time_install'), false, 'three steps finish the first-time install')
    t.equal((await h.call('POST', '/seo/v1/configuration/save_configuration_state', { as: admin, body: {} })).status, 400, 'finishedSteps required')
  })

  t.test('permissions: manage_seo_options', async (t) => {
    const routes: Array<[string, string, Record<string, any>]> = [
      ['POST', '/seo/v1/configuration/site_representation', { company_or_person: 'company' }],
      ['POST', '/seo/v1/configuration/social_profiles', {}],
      ['GET', '/seo/v1/configuration/check_capability', { user_id: 1 }],
      ['POST', '/seo/v1/configuration/enable_tracking', { tracking: false }],
      ['POST', '/seo/v1/configuration/save_configuration_state', { finishedSteps: [] }],
      ['GET', '/seo/v1/configuration/get_configuration_state', {}]
    ]
    for (const [method, path, args] of routes) {
      const opts = method === 'GET' ? { query: args } : { body: args }
      t.equal((await h.call(method, path, opts)).status, 401, `${path}: anonymous`)
      const res = await h.call(method, path, { as: editor, ...opts })
      t.same([res.status, res.body.code], [403, 'rest_forbidden'], `${path}: an editor`)
    }
  })
})
