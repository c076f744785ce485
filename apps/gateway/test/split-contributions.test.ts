/**
 * A package's contributions reach every process (issue 28 item 3): profile B
 * split as split-b runs it, a gateway whose `seo/v1` is served by a second
 * app on the same database over a real loopback port. A post written through
 * the gateway keeps its SEO meta (the gateway loads the SEO package's post
 * meta although none of its routes), and its score is computed by the SEO
 * service's lifecycle-event listener, which the gateway declares but does
 * not run.
 */
import t from 'tap'
import { openTestStore } from '@cms/store/testing'
import { createCaller } from '@cms/core/testing'
import { call } from '@cms/rest/testing'
import { seoAnalyserOf } from '@cms/seo'
import { gatewayApp, listenLoopback } from './helpers.js'

const CONTENT = [
  '<p>Mountain bikes are built for rough trails. Choosing mountain bikes starts with the frame, the suspension and the wheels you need.</p>',
  '<h2>Frames</h2><p>Aluminium frames are light and cheap; carbon frames are lighter still and absorb the small bumps of a trail.</p>',
  '<h2>Suspension</h2><p>A hardtail has a suspension fork only; a full suspension bike adds a rear shock for steep and rocky descents.</p>'
].join('')

t.test('seo/v1 served by another process: SEO meta written through the gateway is kept, and scored there', async (t) => {
  const store = await openTestStore({ migrate: 'later' })
  t.teardown(() => store.close())
  // The SEO package serves seo/v1 and analytics-connector/v1: both move, so nothing of it is served by the gateway.
  const seo = await gatewayApp({ store, env: { CMS_DEPLOYMENT: 'B', CMS_NAMESPACES: 'seo/v1,analytics-connector/v1' } })
  t.teardown(seo.close)
  const seoUrl = await listenLoopback(seo.app)
  // The gateway prunes delivered events at once (no retention): what the SEO listeners have not had must stay.
  const gateway = await gatewayApp({ store, env: { CMS_DEPLOYMENT: 'B', CMS_REMOTE_NAMESPACES: `seo/v1=${seoUrl},analytics-connector/v1=${seoUrl}`, CMS_EVENTS_RETENTION_MS: '0' } })
  t.teardown(gateway.close)
  const events = { gateway: gateway.app.platform.services.events, seo: seo.app.platform.services.events }

  t.test('every process declares the SEO listeners; only the SEO service runs them', async (t) => {
    const listeners = ['analyse-created', 'analyse-updated', 'forget-analysis', 'index-created', 'index-updated', 'unindex-deleted'].map((l) => `@cms/seo:${l}`)
    for (const name of listeners) {
      t.ok(events.gateway.names.declared.includes(name), `the gateway declares ${name}`)
      t.ok(events.seo.names.running.includes(name), `the SEO service runs ${name}`)
    }
    t.same(events.gateway.names.running.filter((n) => !n.startsWith('@cms/core:webhooks.')), [], 'no listener runs in the gateway but the core\'s (webhooks)')
    t.throws(() => seoAnalyserOf(gateway.app.platform), /not registered/, 'the gateway has no SEO analysis queue')
    t.ok(gateway.app.platform.packages().includes('@cms/seo'), 'the SEO package is registered in the gateway (its contributions)')
    t.notOk(gateway.app.restRoutes.some((r) => r.path.startsWith('/seo/v1/')), 'but none of its routes: the namespace is proxied')
  })

  t.test('a post with a focus keyphrase, through the gateway', async (t) => {
    const author = await createCaller(store, 'author')
    const made = await call(gateway.app, 'POST', '/cms/v2/posts', {
      as: author,
      body: { title: 'Mountain bikes: how to choose', slug: 'mountain-bikes', status: 'publish', content: CONTENT, meta: { _seo_focuskw: 'mountain bikes', _seo_metadesc: 'How to choose mountain bikes.' } }
    })
    t.equal(made.status, 201)
    t.equal(made.body.meta?._seo_focuskw, 'mountain bikes', 'the answer carries the key')
    const metaOf = async (): Promise<Record<string, string>> =>
      (await call(gateway.app, 'GET', `/cms/v2/posts/${made.body.id}`, { as: author, query: { context: 'edit' } })).body.meta
    const before = await metaOf()
    t.same([before._seo_focuskw, before._seo_metadesc], ['mountain bikes', 'How to choose mountain bikes.'], 'read back through the gateway: kept')
    t.equal(before._seo_linkdex, '', 'not scored yet')

    await events.gateway.drain()
    t.same(await store.execute("select count(*)::int as n from cms_event_deliveries where listener like '@cms/seo:%'"), [{ n: 0 }], 'the gateway delivers no event to the SEO listeners (only to the core\'s)')
    await events.gateway.prune()
    t.ok(await events.seo.drain() >= 2, 'the SEO service delivers the post\'s events to its listeners (the gateway did not prune them)')
    const ran = await seoAnalyserOf(seo.app.platform).runDue()
    t.equal(ran.analysed, 1, 'the SEO service analysed the post')
    const after = await metaOf()
    t.match(after._seo_linkdex, /^\d{1,3}$/, `scored by the SEO service, read through the gateway (${after._seo_linkdex})`)
    t.ok(Number(after._seo_linkdex) > 0)

    // The same data through seo/v1 itself, proxied by the gateway to the SEO service.
    const ranked = await call(gateway.app, 'GET', '/seo/v1/bulk_editor/posts', { as: await createCaller(store, 'administrator'), query: { content_type: 'post' } })
    t.equal(ranked.status, 200)
    t.ok(JSON.stringify(ranked.body).includes('mountain bikes'), 'the SEO service sees the keyphrase written through the gateway')
  })
})
