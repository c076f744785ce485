/**
 * What the first large text loads (the HTML filter's module, piscina and
 * the text pool's object) is loaded before the service listens, not beside
 * the first request that filters (issue 27: 30-80 ms of the event loop).
 * Checked by what is left to load after listening, never by time: nothing
 * in this file filters a text before it.
 *
 * test-all: alone (it reads what its process has loaded: in a batch, an earlier file has loaded and used the
 * text pool already, so the check would be empty).
 */
import t from 'tap'
import { testApp } from '../src/testing.js'
import { textPool } from '../src/text/text-pool.js'

t.test('listening loads the text filter and the pool ahead of any request', async (t) => {
  t.same({ pool: textPool.counts.pool, inline: textPool.counts.inline }, { pool: 0, inline: 0 }, 'a process of its own: nothing filtered before this file')
  const { app } = await testApp({ namespaces: ['cms/v2'] })
  t.teardown(async () => { await app.close(); await textPool.close() })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.same(await textPool.warm(), { filter: false, pool: false }, 'nothing left to load once the service listens (loaded when it was ready, before listening)')
  t.equal(textPool.counts.pool + textPool.counts.inline, 0, 'and no text was filtered to load them')
})
