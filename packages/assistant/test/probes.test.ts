/**
 * assistant/v1 findings of an attacker's and a real client's probes, each
 * through HTTP on a real database: what a request could make the service
 * store or answer that it should not.
 */
import t from 'tap'
import { testApp } from '@cms/testing'
import { builderPackage } from '@cms/builder'
import { assistantPackage } from '../src/index.js'

const S = '/assistant/v1'

t.test('assistant probes', async (t) => {
  const h = await testApp({ packages: [builderPackage, assistantPackage], namespaces: ['cms/v2', 'assistant/v1'] })
  t.teardown(h.close)
  const admin = await h.caller('administrator')

  t.test('settings/{name}: JSON text nested past the body limit is refused, not stored to fail every read', async (t) => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000)
    const wrote = await h.call('POST', `${S}/settings/deep`, { as: admin, body: { value: deep } })
    t.same([wrote.status, wrote.body.code, wrote.body.data?.status], [413, 'rest_too_much_text', 413])
    t.same(await h.store.execute("select name from assistant_settings where name = 'deep'"), [], 'nothing written')
    const read = await h.call('GET', `${S}/settings/deep`, { as: admin })
    t.same([read.status, read.body.data.value], [200, []])
    const fine = '['.repeat(500) + ']'.repeat(500)
    t.equal((await h.call('POST', `${S}/settings/fine`, { as: admin, body: { value: fine } })).status, 200, 'as deep as a body may nest is kept')
    t.equal((await h.call('GET', `${S}/settings/fine`, { as: admin })).status, 200)
  })
})
