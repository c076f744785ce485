/**
 * hdrftr/v1 plugins, recommended-plugins and templates through HTTP
 * (builder-family.md §7): each entry's install status read from the
 * package registry of a real content directory, as plugins are installed
 * and activated there.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { definePackage } from '@cms/core'
import { packageRegistry, registryPackage, type PackageRegistry } from '@cms/registry'
import { scratchDir, testApp } from '@cms/testing'
import { hdrftrPackage } from '../src/index.js'
import { COMPANIONS, RECOMMENDED } from '../src/plugins.js'

const H = '/hdrftr/v1'

t.test('catalogues with the install status of each plugin', async (t) => {
  const content = await scratchDir('hdrftr-content')
  let registry: PackageRegistry | undefined
  // A package that depends on the registry, to install and activate plugins as a site would.
  const probe = definePackage({ name: 'hdrftr-probe', dependencies: ['@cms/registry'], namespaces: ['probe/v1'], contribute (api) { registry = api.require(packageRegistry) } })
  const h = await testApp({ packages: [registryPackage, hdrftrPackage, probe], namespaces: ['cms/v2', 'hdrftr/v1', 'probe/v1'], contentDir: content })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const editor = await h.caller('editor')
  const install = async (slug: string): Promise<void> => {
    await mkdir(join(content, 'plugins', slug), { recursive: true })
    await writeFile(join(content, 'plugins', slug, 'manifest.json'), JSON.stringify({ name: slug, version: '1.0.0', slug }))
  }

  const fresh = await h.call('GET', `${H}/plugins`, { as: admin })
  t.equal(fresh.status, 200)
  t.same(Object.keys(fresh.body), COMPANIONS.map((c) => c.slug))
  t.match(fresh.body.forms, { type: 'plugin', name: 'Forms', slug: 'forms', isFree: true, status: 'Install', settings_url: null })
  const recommended = await h.call('GET', `${H}/recommended-plugins`, { as: admin })
  t.same(Object.keys(recommended.body), RECOMMENDED.map((c) => c.slug))
  t.ok(Object.values(recommended.body).every((p: any) => p.status === 'Install'))
  t.same((await h.call('GET', `${H}/templates`, { as: admin })).body, { templates_status: 'Install' })

  await install('forms')
  await install('rank-seo')
  await registry!.activate('plugin', 'rank-seo', { actor: { userId: admin.id } })
  const after = await h.call('GET', `${H}/plugins`, { as: admin })
  t.equal(after.body.forms.status, 'Installed', 'installed, not active')
  t.notOk('rank-seo' in after.body, 'an active plugin is left out')
  const rec = await h.call('GET', `${H}/recommended-plugins`, { as: admin })
  t.same([rec.body.forms.status, rec.body['rank-seo'].status], ['Installed', 'Activated'])

  await install('starter-templates')
  t.same((await h.call('GET', `${H}/templates`, { as: admin })).body, { templates_status: 'Installed' })
  await registry!.activate('plugin', 'starter-templates', { actor: { userId: admin.id } })
  t.same((await h.call('GET', `${H}/templates`, { as: admin })).body, { templates_status: 'Activated' })
  t.equal((await h.call('GET', `${H}/recommended-plugins`, { as: admin })).body['starter-templates'].status, 'Activated')
  await install('starter-templates-pro')
  t.notOk('starter-templates' in (await h.call('GET', `${H}/recommended-plugins`, { as: admin })).body, 'hidden once the Pro version is installed')

  for (const path of ['plugins', 'recommended-plugins', 'templates']) {
    t.equal((await h.call('GET', `${H}/${path}`, { as: editor })).status, 403)
    t.equal((await h.call('GET', `${H}/${path}`)).status, 401)
  }
})
