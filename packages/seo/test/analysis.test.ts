/**
 * Part 2: scores computed on the server. Posts written through cms/v2 are
 * analysed after the lifecycle events are delivered, in the worker pool,
 * and their scores stored as post meta; fixture posts whose outcome is
 * known; a failed analysis recorded and retried; `cms seo analyze`; two
 * analyses of one post ordered by hand (a held analysis): the newer input
 * wins, and the CLI waits for the service's analysis under way.
 */
import { readFileSync } from 'node:fs'
import t from 'tap'
import { testApp } from '@cms/testing'
import type { PackageCommandContext, Services } from '@cms/core'
import { seoAnalyserOf, seoPackage } from '../src/index.js'
import { createAnalyser } from '../src/analysis.js'
import { classicRank, readabilityGroup, seoGroup } from '../src/buckets.js'
import { seoCommands } from '../src/cli.js'

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')

t.test('score buckets at their exact boundaries (notes §1.2)', async (t) => {
  t.same([0, 1, 40, 41, 70, 71, 100].map((s) => classicRank(true, s, false)), ['na', 'bad', 'bad', 'ok', 'ok', 'good', 'good'])
  t.equal(classicRank(false, 90, false), 'na', 'no keyphrase: not available')
  t.equal(classicRank(true, 90, true), 'noindex')
  t.same([null, 0, 1, 40, 41, 70, 71, 100].map(seoGroup), ['notAnalyzed', 'notAnalyzed', 'bad', 'bad', 'ok', 'ok', 'good', 'good'])
  t.same([1, 40, 41, 70, 71, 100].map((s) => readabilityGroup(s, 3)), ['bad', 'bad', 'ok', 'ok', 'good', 'good'])
  t.equal(readabilityGroup(0, 2), 'bad', 'score 0 with a reading time: analysed, bad')
  t.equal(readabilityGroup(0, 0), 'bad', 'a reading time of 0 minutes is still present')
  t.equal(readabilityGroup(0, null), 'notAnalyzed', 'score 0 without a reading time: not analysed')
  t.equal(readabilityGroup(null, null), 'notAnalyzed')
})

t.test('analysis on the server', async (t) => {
  const h = await testApp({ packages: [seoPackage], namespaces: ['cms/v2', 'seo/v1'] })
  t.teardown(h.close)
  const services = h.platform.services
  /** The CLI's context over this app's services: what a command prints goes to `lines`, its progress lines to `progress`. */
  const cliContext = (lines: string[], progress: (text: string) => void = () => {}): PackageCommandContext => ({
    env: {},
    out: (text) => { lines.push(text) },
    progress,
    withServices: async <T>(fn: (s: Services) => Promise<T>) => await fn(services)
  })
  const analyser = seoAnalyserOf(h.platform)
  const author = await h.caller('author')
  const settle = async (): Promise<void> => {
    await services.events.drain()
    await analyser.runDue()
  }
  const metaOf = async (id: number): Promise<Record<string, string>> =>
    (await h.call('GET', `/cms/v2/posts/${id}`, { as: author, query: { context: 'edit' } })).body.meta

  const good = await h.call('POST', '/cms/v2/posts', {
    as: author,
    body: {
      title: 'Winter boots: how to choose a warm pair',
      slug: 'winter-boots',
      status: 'publish',
      content: fixture('keyphrase-post.html'),
      meta: { _seo_focuskw: 'winter boots', _seo_title: '%%title%%', _seo_metadesc: 'Winter boots guide: how to choose winter boots that keep your feet warm and dry all season, from soles and linings to fit and care.' }
    }
  })
  const plain = await h.call('POST', '/cms/v2/posts', { as: author, body: { title: 'Winter boots', status: 'publish', content: fixture('keyphrase-post.html') } })
  const wall = await h.call('POST', '/cms/v2/posts', { as: author, body: { title: 'Minutes', status: 'publish', content: fixture('wall-of-text.html') } })
  const empty = await h.call('POST', '/cms/v2/posts', { as: author, body: { title: 'Nothing yet', status: 'draft' } })
  t.same([good.status, plain.status, wall.status, empty.status], [201, 201, 201, 201])
  t.equal((await metaOf(good.body.id))._seo_linkdex, '', 'nothing is computed on the request thread')

  const started = performance.now()
  await settle()
  t.comment(`4 posts analysed in ${Math.round(performance.now() - started)} ms`)

  const g = await metaOf(good.body.id)
  t.ok(Number(g._seo_linkdex) >= 71, `keyphrase in title, intro and slug: SEO good (${g._seo_linkdex})`)
  t.ok(Number(g._seo_content_score) >= 71, `readability good (${g._seo_content_score})`)
  t.ok(Number(g._seo_inclusive_language_score) >= 71, 'inclusive language good')
  t.equal(g['_seo_estimated-reading-time-minutes'], '2')

  const p = await metaOf(plain.body.id)
  t.equal(p._seo_linkdex, '', 'no keyphrase: no SEO score (not analysed), written through cms/v2 without any SEO field')
  t.ok(Number(p._seo_content_score) >= 71, 'but readability is scored')
  t.equal(seoGroup(p._seo_linkdex === '' ? null : Number(p._seo_linkdex)), 'notAnalyzed')

  const w = await metaOf(wall.body.id)
  t.ok(Number(w._seo_content_score) <= 40, `a wall of text without subheadings: readability bad (${w._seo_content_score})`)
  t.equal(readabilityGroup(Number(w._seo_content_score), Number(w['_seo_estimated-reading-time-minutes'])), 'bad')

  const e = await metaOf(empty.body.id)
  t.same([e._seo_content_score, e['_seo_estimated-reading-time-minutes']], ['0', ''], 'no text: score 0 and no reading time')
  t.equal(readabilityGroup(0, null), 'notAnalyzed')

  t.test('the scores are written without touching the post, and unchanged text is not analysed again', async (t) => {
    const before = await h.call('GET', `/cms/v2/posts/${good.body.id}`, { as: author, query: { context: 'edit' } })
    await services.events.drain()
    t.same(await analyser.runDue(), { analysed: 0, failed: 0, skipped: 0 }, 'storing the scores made no new event')
    await h.call('POST', `/cms/v2/posts/${good.body.id}`, { as: author, body: { sticky: true } })
    await services.events.drain()
    t.same(await analyser.runDue(), { analysed: 0, failed: 0, skipped: 1 }, 'a change outside the analysed fields: hash unchanged, skipped')
    const after = await h.call('GET', `/cms/v2/posts/${good.body.id}`, { as: author, query: { context: 'edit' } })
    t.equal(after.body.meta._seo_linkdex, before.body.meta._seo_linkdex)

    await h.call('POST', `/cms/v2/posts/${good.body.id}`, { as: author, body: { meta: { _seo_focuskw: 'garden hose' } } })
    await settle()
    const again = Number((await metaOf(good.body.id))._seo_linkdex)
    t.ok(again < Number(before.body.meta._seo_linkdex) && again <= 70, `a new keyphrase the text does not use: scored again, lower (${again})`)
  })

  t.test('a failed analysis is recorded and retried; the write is not blocked', async (t) => {
    let fail = true
    const flaky = createAnalyser({
      store: () => h.store,
      content: services.content,
      threads: async () => 1,
      analyse: async () => {
        if (fail) throw new Error('analysis crashed')
        return { seo: 55, readability: 66, inclusive: 77, readingTime: 3 }
      }
    })
    const post = await h.call('POST', '/cms/v2/posts', { as: author, body: { title: 'Flaky', status: 'publish', content: '<p>Some text here.</p>' } })
    t.equal(post.status, 201)
    await services.events.drain()
    t.same(await flaky.runDue(), { analysed: 0, failed: 1, skipped: 0 })
    const [row] = await h.store.execute<{ state: string, attempts: number, last_error: string }>(`select state, attempts, last_error from seo_analysis where post_id = ${post.body.id}`)
    t.same(row, { state: 'failed', attempts: 1, last_error: 'analysis crashed' }, 'recorded')
    t.same(await flaky.runDue(), { analysed: 0, failed: 0, skipped: 0 }, 'not retried before its delay')
    await h.store.execute(`update seo_analysis set not_before = now() - interval '1 second' where post_id = ${post.body.id}`)
    fail = false
    t.same(await flaky.runDue(), { analysed: 1, failed: 0, skipped: 0 }, 'retried after the delay')
    t.same((await metaOf(post.body.id))._seo_content_score, '66')
  })

  t.test('cms seo analyze', async (t) => {
    const lines: string[] = []
    const ctx = cliContext(lines)
    const [command] = seoCommands
    t.equal(await command!.run(['analyze', '--post', String(wall.body.id)], ctx), 0)
    t.match(lines.at(-1), /^analysed 1, unchanged 0, failed 0$/, '--post analyses the one post again')
    t.equal(await command!.run(['analyze', '--all'], ctx), 0)
    t.match(lines.at(-1), /^analysed 5, unchanged 0, failed 0$/, '--all: every post, text changed or not')
    t.equal(await command!.run(['analyze'], ctx), 0)
    t.match(lines.at(-1), /^analysed 0, unchanged 0, failed 0$/, 'nothing due')
    t.equal(await command!.run(['analyze', '--post', '999999'], ctx), 1)
    await t.rejects(command!.run(['analyze', '--post', 'x'], ctx), { name: 'CommandUsageError' })
    await t.rejects(command!.run(['analyse'], ctx), { name: 'CommandUsageError' })
  })

  /** A promise and what settles it: the tests below order two analyses with it, not with time. */
  const gate = (): { promise: Promise<void>, open: () => void } => {
    let open!: () => void
    const promise = new Promise<void>((resolve) => { open = resolve })
    return { promise, open }
  }
  /** An analyser standing for another worker (another replica, or the service beside the CLI) whose first analysis waits for `release`. */
  const heldAnalyser = (release: Promise<void>) => {
    const inside = gate()
    const keywords: string[] = []
    const analyser = createAnalyser({
      store: () => h.store,
      content: services.content,
      threads: async () => 1,
      analyse: async (input) => {
        keywords.push(input.keyword)
        if (keywords.length === 1) {
          inside.open()
          await release
        }
        // The SEO score stands for the input: the keyphrase's length.
        return { seo: input.keyword.length, readability: 50, inclusive: 50, readingTime: 1 }
      }
    })
    return { analyser, keywords, inside: inside.promise }
  }
  /** The service beside the CLI, inside its analysis of the post just written until `release` opens. */
  const serviceAnalysing = async () => {
    const release = gate()
    const service = heldAnalyser(release.promise)
    const working = service.analyser.runDue()
    await service.inside
    return { release, working }
  }
  const stateOf = async (id: number): Promise<string | undefined> =>
    (await h.store.execute<{ state: string }>(`select state from seo_analysis where post_id = ${id}`))[0]?.state

  t.test('a post written while it is analysed is analysed again: the newer input\'s scores are the last written', async (t) => {
    const post = await h.call('POST', '/cms/v2/posts', { as: author, body: { title: 'Rye', status: 'publish', content: '<p>Rye bread.</p>', meta: { _seo_focuskw: 'one' } } })
    await services.events.drain()
    const release = gate()
    const slow = heldAnalyser(release.promise)
    const run = slow.analyser.runDue()
    await slow.inside // the analysis of the first input is under way
    await h.call('POST', `/cms/v2/posts/${post.body.id}`, { as: author, body: { meta: { _seo_focuskw: 'three' } } })
    await services.events.drain() // marked due again
    release.open()
    t.same(await run, { analysed: 2, failed: 0, skipped: 0 }, 'the run takes the post again once the first analysis ends')
    t.same(slow.keywords, ['one', 'three'], 'the newer input analysed after the older one')
    t.equal((await metaOf(post.body.id))._seo_linkdex, '5', 'the scores are the newer input\'s')
    t.equal(await stateOf(post.body.id), 'done')
    t.same(await slow.analyser.runDue(), { analysed: 0, failed: 0, skipped: 0 }, 'nothing left due')
  })

  t.test('an analysis whose lease ran out and was taken over does not write over the newer analysis', async (t) => {
    const post = await h.call('POST', '/cms/v2/posts', { as: author, body: { title: 'Spelt', status: 'publish', content: '<p>Spelt bread.</p>', meta: { _seo_focuskw: 'one' } } })
    await services.events.drain()
    const release = gate()
    const stalled = heldAnalyser(release.promise)
    const run = stalled.analyser.runDue()
    await stalled.inside
    await h.call('POST', `/cms/v2/posts/${post.body.id}`, { as: author, body: { meta: { _seo_focuskw: 'three' } } })
    await services.events.drain()
    // The stalled analysis outlives its lease: another worker takes the post and analyses the newer input.
    await h.store.execute(`update seo_analysis set lease_until = now() - interval '1 second' where post_id = ${post.body.id}`)
    const other = heldAnalyser(Promise.resolve())
    t.same(await other.analyser.runDue(), { analysed: 1, failed: 0, skipped: 0 })
    t.same(other.keywords, ['three'])
    release.open()
    t.same(await run, { analysed: 0, failed: 0, skipped: 1 }, 'the stalled analysis ends without writing')
    t.equal((await metaOf(post.body.id))._seo_linkdex, '5', 'the newer input\'s scores stay')
    t.equal(await stateOf(post.body.id), 'done')
  })

  t.test('plain cms seo analyze while the service analyses a post: not waited for, named as left to the service', async (t) => {
    const post = await h.call('POST', '/cms/v2/posts', { as: author, body: { title: 'Barley', status: 'publish', content: '<p>Barley bread.</p>' } })
    await services.events.drain()
    const { release, working } = await serviceAnalysing()
    const lines: string[] = []
    const waits: string[] = []
    const ctx = cliContext(lines, (text) => { if (text.startsWith('waiting')) waits.push(text) })
    const code = await seoCommands[0]!.run(['analyze'], ctx)
    release.open()
    await working
    t.equal(code, 0, 'a post the service finishes is no failure')
    t.same(waits, [], 'no post was asked for: none waited for')
    t.equal(lines.at(-1), `analysed 0, unchanged 0, failed 0, left to the service 1 (post ${post.body.id as number})`)
    t.equal(await stateOf(post.body.id), 'done', 'the service finished it')
  })

  t.test('cms seo analyze --post while the service analyses the post: waits, and ends with the post analysed', async (t) => {
    const post = await h.call('POST', '/cms/v2/posts', { as: author, body: { title: 'Sourdough', status: 'publish', content: '<p>Sourdough bread at home.</p>', meta: { _seo_focuskw: 'sourdough bread' } } })
    await services.events.drain()
    // The service's worker has taken the post (created a moment ago) and is analysing it.
    const { release, working } = await serviceAnalysing()
    const lines: string[] = []
    const waits: string[] = []
    // Once the command says it waits for the service, the service's analysis ends.
    const ctx = cliContext(lines, (text) => { if (text.startsWith('waiting')) { waits.push(text); release.open() } })
    const code = await seoCommands[0]!.run(['analyze', '--post', String(post.body.id)], ctx)
    const meta = await metaOf(post.body.id)
    release.open() // (without the wait, the service's analysis is still held here)
    await working
    t.equal(code, 0)
    t.same(waits.slice(0, 1), ['waiting for 1 post the service is analysing'], 'it said what it waits for')
    t.equal(lines.at(-1), 'analysed 1, unchanged 0, failed 0')
    t.match(meta, { _seo_linkdex: /^\d+$/, _seo_content_score: /^\d+$/ }, 'when the command ends, the post\'s scores are there')
    t.equal(await stateOf(post.body.id), 'done', 'and it is not due')
  })
})
