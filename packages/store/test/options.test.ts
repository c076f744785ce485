import t from 'tap'
import { sql } from 'drizzle-orm'
import {
  getOption,
  getOptions,
  knownOptions,
  optionDefaults,
  OptionError,
  resetOption,
  setOption,
} from '../src/index.js'
import { openTestStore } from '../src/testing.js'

t.test('options', async (t) => {
  const store = await openTestStore()
  t.teardown(() => store.close())

  t.test('defaults before anything is set', async (t) => {
    t.equal(await getOption(store, 'name'), 'My CMS Site')
    t.equal(await getOption(store, 'posts_per_page'), 10)
    const all = await getOptions(store)
    t.same(Object.keys(all).sort(), [...knownOptions].sort())
    t.same(all, optionDefaults)
    t.same(await getOptions(store, ['timezone_string', 'blog_public']), { timezone_string: 'UTC', blog_public: 1 })
  })

  t.test('round trip', async (t) => {
    t.equal(await setOption(store, 'name', 'Hello'), 'Hello')
    t.equal(await setOption(store, 'posts_per_page', 25), 25)
    t.equal(await setOption(store, 'timezone_string', 'Europe/Paris'), 'Europe/Paris')
    t.equal(await setOption(store, 'name', 'Hello again'), 'Hello again', 'upsert')
    t.equal(await getOption(store, 'name'), 'Hello again')
    t.equal(await getOption(store, 'posts_per_page'), 25)
    const all = await getOptions(store)
    t.equal(all.timezone_string, 'Europe/Paris')
    t.equal(all.description, '', 'unset stays default')

    const rows = await store.execute<{ name: string; type: string; autoload: boolean }>(
      sql`select name, jsonb_typeof(value) as type, autoload from options order by name`
    )
    t.same(rows, [
      { name: 'name', type: 'string', autoload: true },
      { name: 'posts_per_page', type: 'number', autoload: true },
      { name: 'timezone_string', type: 'string', autoload: true },
    ], 'stored as jsonb scalars, snake_case columns')

    await resetOption(store, 'name')
    t.equal(await getOption(store, 'name'), 'My CMS Site', 'reset to default')
  })

  t.test('strings that look like JSON stay strings', async (t) => {
    for (const text of ['null', 'true', '123', '{"a":1}', '[1,2]', '"quoted"']) {
      await setOption(store, 'description', text)
      t.equal(await getOption(store, 'description'), text, JSON.stringify(text))
      t.equal((await getOptions(store, ['description'])).description, text)
    }
    await resetOption(store, 'description')
  })

  t.test('coercion and normalisation', async (t) => {
    t.equal(await setOption(store, 'posts_per_page', '12'), 12, 'integer string')
    t.equal(await setOption(store, 'name', 123), '123', 'number for a string option')
    t.equal(await setOption(store, 'gmt_offset', -5), '-5')
    t.equal(await setOption(store, 'timezone_string', 'america/new_york'), 'America/New_York', 'canonical zone')
    t.equal(await setOption(store, 'url', 'https://example.com/'), 'https://example.com', 'trailing slash')
    t.equal(await setOption(store, 'home', ''), '', 'empty url means derived')
    t.equal(await setOption(store, 'timezone_string', 'UTC'), 'UTC')
  })

  t.test('unknown option rejected', async (t) => {
    await t.rejects(setOption(store, 'no_such_option', 'x'), { name: 'OptionError', code: 'unknown_option' })
    await t.rejects(getOption(store, 'no_such_option'), OptionError)
    await t.rejects(getOptions(store, ['name', 'nope']), { code: 'unknown_option' })
    const rows = await store.execute(sql`select 1 from options where name = 'no_such_option'`)
    t.equal(rows.length, 0)
  })

  t.test('invalid values rejected', async (t) => {
    const before = await getOption(store, 'timezone_string')
    for (const tz of ['Mars/Olympus_Mons', '+05:00', '', 'Not a zone']) {
      await t.rejects(setOption(store, 'timezone_string', tz), { code: 'invalid_option_value' }, `timezone ${JSON.stringify(tz)}`)
    }
    t.equal(await getOption(store, 'timezone_string'), before, 'unchanged')
    await t.rejects(setOption(store, 'posts_per_page', 'ten'), { code: 'invalid_option_value' })
    await t.rejects(setOption(store, 'posts_per_page', 1.5), { code: 'invalid_option_value' })
    await t.rejects(setOption(store, 'posts_per_page', 0), { code: 'invalid_option_value' })
    await t.rejects(setOption(store, 'name', true), { code: 'invalid_option_value' })
    await t.rejects(setOption(store, 'name', { a: 1 }), { code: 'invalid_option_value' })
    await t.rejects(setOption(store, 'show_on_front', 'home'), { code: 'invalid_option_value' })
    await t.rejects(setOption(store, 'default_comment_status', 'maybe'), { code: 'invalid_option_value' })
    await t.rejects(setOption(store, 'blog_public', 2), { code: 'invalid_option_value' })
    await t.rejects(setOption(store, 'url', 'ftp://example.com'), { code: 'invalid_option_value' })
    await t.rejects(setOption(store, 'url', 'not a url'), { code: 'invalid_option_value' })
    await t.rejects(setOption(store, 'gmt_offset', '99'), { code: 'invalid_option_value' })
  })

  t.test('inside a transaction', async (t) => {
    await store.transaction(async (tx) => {
      await setOption(tx, 'description', 'in tx')
      t.equal(await getOption(tx, 'description'), 'in tx')
    })
    t.equal(await getOption(store, 'description'), 'in tx')
  })
})
