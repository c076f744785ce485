/**
 * Upgrade in place: a database built by the migrations as they were before
 * each package had its own (one folder, one `drizzle.__drizzle_migrations`
 * table; copied under test/fixtures/legacy-migrations from
 * packages/store/migrations at d8ef07f), holding posts, terms, meta, users
 * and application passwords, is migrated by today's gateway and read back
 * through HTTP with every row kept.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import type { Store } from '@cms/store'
import { migrationsApplied, openTestStore } from '@cms/store/testing'
import { createApplicationPassword, createUser } from '@cms/core'
import { basic } from '@cms/rest/testing'
import { gatewayApp } from './helpers.js'

const legacy = fileURLToPath(new URL('./fixtures/legacy-migrations/', import.meta.url))

/** What drizzle's migrator of that time did: each file's statements, then a row with its hash and timestamp. */
async function migrateAsBefore (store: Store): Promise<void> {
  const journal = JSON.parse(readFileSync(`${legacy}meta/_journal.json`, 'utf8')) as { entries: Array<{ tag: string, when: number }> }
  await store.execute('create schema if not exists drizzle')
  await store.execute('create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)')
  for (const { tag, when } of journal.entries) {
    const text = readFileSync(`${legacy}${tag}.sql`, 'utf8')
    for (const statement of text.split('--> statement-breakpoint')) await store.execute(statement)
    const hash = createHash('sha256').update(text).digest('hex')
    // hash is hex and when a number: safe to write inline.
    await store.execute(`insert into drizzle.__drizzle_migrations (hash, created_at) values ('${hash}', ${when})`)
  }
}

t.test('a database of the previous migrations upgrades in place, every row kept', async (t) => {
  const store = await openTestStore({ migrate: false })
  t.teardown(() => store.close())
  await migrateAsBefore(store)

  const admin = await createUser(store, { login: 'old-admin', email: 'old-admin@example.com', roles: ['administrator'] })
  const { password } = await createApplicationPassword(store, admin.id, { name: 'old client' })
  await store.execute('insert into terms (id, taxonomy, name, slug) values (7, \'post_tag\', \'Old tag\', \'old-tag\')')
  await store.execute(`insert into posts (id, type, author, status, date_gmt, modified_gmt, slug, title, content, guid)
    values (41, 'post', ${admin.id}, 'publish', '2026-01-02 03:04:05+00', '2026-01-02 03:04:05+00', 'old-post', 'Old post', 'Old content', 'http://cms.test/?p=41'),
           (42, 'post', ${admin.id}, 'draft', null, '2026-01-03 00:00:00+00', '', 'Old draft', 'Draft content', 'http://cms.test/?p=42')`)
  await store.execute('insert into term_relationships (post_id, term_id) values (41, 1), (41, 7), (42, 1)')
  await store.execute('update terms set count = 1 where id in (1, 7)')
  await store.execute('insert into post_meta (post_id, key, value) values (41, \'_builder_edit_mode\', \'"builder"\'), (41, \'footnotes\', \'"[]"\')')
  await store.execute('select setval(pg_get_serial_sequence(\'posts\', \'id\'), 42)')
  await store.execute('select setval(pg_get_serial_sequence(\'terms\', \'id\'), 7)')

  const { app, close } = await gatewayApp({ env: { CMS_DEPLOYMENT: 'B' }, store })
  t.teardown(close)
  // Not from a template: the app's own migrator upgrades this database, as at a real start.
  t.ok(migrationsApplied(store) > 0, 'the app applied the migrations newer than the legacy ones')
  const auth = { authorization: basic('old-admin', password) }

  const post = await app.inject({ url: '/cms-json/cms/v2/posts/41?context=edit', headers: auth })
  t.equal(post.statusCode, 200, 'the old application password still signs in')
  const body = post.json()
  t.match(body, { id: 41, slug: 'old-post', status: 'publish', title: { raw: 'Old post' }, content: { raw: 'Old content' }, categories: [1], tags: [7], author: admin.id })
  t.match(body.meta, { _builder_edit_mode: 'builder', footnotes: '[]' }, 'meta kept')
  const draft = await app.inject({ url: '/cms-json/cms/v2/posts/42?context=edit', headers: auth })
  t.match(draft.json(), { id: 42, status: 'draft', title: { raw: 'Old draft' } })
  const tag = await app.inject({ url: '/cms-json/cms/v2/tags/7' })
  t.match(tag.json(), { id: 7, name: 'Old tag', count: 1 })
  const passwords = await app.inject({ url: `/cms-json/cms/v2/users/${admin.id}/application-passwords`, headers: auth })
  t.match(passwords.json(), [{ name: 'old client' }])

  // New writes continue the old sequences and the migrations are not run twice.
  const created = await app.inject({ method: 'POST', url: '/cms-json/cms/v2/posts', headers: { ...auth, 'content-type': 'application/json' }, payload: JSON.stringify({ title: 'New', status: 'publish', tags: [7] }) })
  t.equal(created.statusCode, 201)
  t.equal(created.json().id, 43, 'ids continue after the old rows')
  const core = await store.execute<{ n: number }>('select count(*)::int as n from drizzle.__migrations_cms_core')
  t.equal(core[0]!.n, 23, 'the core adopted its six migrations from the shared table, then ran the seventeen made since (0007 lifecycle events, 0008 comments, 0009 rate limits, 0010 webhooks, 0011 audit log, 0012 webhook secret rotation, 0013 credential epoch, 0014 settings and webhook epochs, 0015 audit outbox, 0016 term count deltas, 0017 insert post free slug, 0018 revisions by parent, 0019 term count writers, 0020 lifecycle event scope, 0021 insert post answer terms, 0022 term count deltas unchecked, 0023 term count fold index scan)')
  t.same(await store.execute('select count(*)::int as n from cms_events where topic = \'post.created\''), [{ n: 1 }], 'the upgraded database records events: the new post')
  const shared = await store.execute<{ n: number }>('select count(*)::int as n from drizzle.__drizzle_migrations')
  t.equal(shared[0]!.n, 7, 'the old table is left as it was')
})
