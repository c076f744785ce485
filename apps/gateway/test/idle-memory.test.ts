/**
 * The idle collection (src/idle-memory.ts): one full collection at the
 * first look that finds no request since the look before, after some
 * requests; none while requests keep coming, none again while the service
 * stays idle. Counted (a stand-in collector, looks made by the test: no
 * timing), over HTTP on a real port, since the count is of the requests
 * the server received, which inject() would not be.
 */
import Fastify from 'fastify'
import t from 'tap'
import { collectWhenIdle } from '../src/idle-memory.js'

t.test('one collection per busy-then-quiet turn', async (t) => {
  const app = Fastify()
  app.get('/', async () => ({ ok: true }))
  let collections = 0
  let look = (): void => {}
  let stopped = false
  collectWhenIdle(app, { gc: () => { collections++ }, schedule: (tick) => { look = tick; return () => { stopped = true } } })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const request = async (): Promise<void> => { await (await fetch(base)).arrayBuffer() }

  look()
  look()
  t.equal(collections, 0, 'nothing before any request')
  for (let i = 0; i < 5; i++) {
    await request()
    look()
  }
  t.equal(collections, 0, 'none while each look finds new requests')
  look()
  t.equal(collections, 1, 'one at the first quiet look')
  look()
  look()
  t.equal(collections, 1, 'not again while idle')
  await request()
  await request()
  look()
  look()
  t.equal(collections, 2, 'one more after the next requests')
  await app.close()
  t.ok(stopped, 'the looks stop with the app')
})
