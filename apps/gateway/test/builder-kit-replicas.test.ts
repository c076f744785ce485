/**
 * Two replicas of profile A on one database make the site's first design kit
 * once: each has its own builder package (its own in-process guard), so only
 * the package's lock on the database keeps them from making two kits.
 */
import t from 'tap'
import { coreMigrations } from '@cms/core'
import { createCaller } from '@cms/core/testing'
import { call } from '@cms/rest/testing'
import { openTestStore } from '@cms/store/testing'
import { harnessApp } from './harness/app.js'

t.test('replicas asking for the kit at once make one', async (t) => {
  const store = await openTestStore({ migrations: [coreMigrations] })
  t.teardown(async () => { await store.close() })
  const one = await harnessApp({ CMS_DEPLOYMENT: 'A' }, store)
  t.teardown(one.close)
  const two = await harnessApp({ CMS_DEPLOYMENT: 'A' }, store)
  t.teardown(two.close)
  const contributor = await createCaller(store, 'contributor')

  const answers = await Promise.all([one, two, one, two].map(async (h) => await call(h.app, 'GET', '/builder/v1/globals/colors', { as: contributor })))
  t.same(answers.map((a) => a.status), [200, 200, 200, 200])
  t.ok(answers.every((a) => a.body.primary?.value === '#6EC1E4'), 'each answers the factory colors')
  const kits = await store.execute<{ id: number }>("select p.id from posts p join post_meta m on m.post_id = p.id and m.key = '_builder_template_type' where m.value = '\"kit\"'")
  t.equal(kits.length, 1, 'one kit')
  t.same(await store.execute("select value from options where name = 'builder_active_kit'"), [{ value: kits[0]!.id }], 'the option names it')
})
