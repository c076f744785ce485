// The CLI in-process (fast): argument handling, errors and the site commands
// against a test store (PGlite in memory, or PostgreSQL with CMS_TEST_DATABASE_URL).
import t from 'tap'
import { openTestStore } from '@cms/store/testing'
import { argvForParse } from '../src/index.js'
import { inProcess } from './helpers.js'

t.test('argvForParse keeps negative numbers as values', async (t) => {
  t.same(argvForParse(['set', 'gmt_offset', '-5']), ['set', 'gmt_offset', '--', '-5'])
  t.same(argvForParse(['set', 'gmt_offset', '-5.5']), ['set', 'gmt_offset', '--', '-5.5'])
  t.same(argvForParse(['get', '--json']), ['get', '--json'])
  t.same(argvForParse(['set', 'x', '--', '-5']), ['set', 'x', '--', '-5'])
})

t.test('usage and bad input', async (t) => {
  const { exec, opened } = inProcess()
  const none = await exec([])
  t.equal(none.code, 2)
  t.match(none.stderr, /Usage: cms <command>/)
  for (const argv of [['--help'], ['-h'], ['help']]) {
    const r = await exec(argv)
    t.equal(r.code, 0)
    t.match(r.stdout, /Commands:\n\s+migrate .*\n\s+site /)
  }
  for (const argv of [['help', 'site'], ['site', '--help'], ['site', 'help'], ['site', 'get', '-h']]) {
    const r = await exec(argv)
    t.equal(r.code, 0, argv.join(' '))
    t.match(r.stdout, /cms site get \[<option>\]/)
  }
  t.match((await exec(['migrate', '--help'])).stdout, /Usage: cms migrate/)

  const cases: [string[], number, RegExp][] = [
    [['frob'], 2, /^cms: unknown command "frob" \(see: cms --help\)$/],
    [['--frob'], 2, /^cms: unknown option "--frob"/],
    [['help', 'frob'], 2, /unknown command "frob"/],
    [['site'], 2, /missing subcommand \(get or set\)/],
    [['site', 'frob'], 2, /unknown subcommand "frob"/],
    [['site', 'get', '--frob'], 2, /^cms: unknown option "--frob" \(see: cms site --help\)$/],
    [['site', 'get', 'a', 'b'], 2, /too many arguments/],
    [['site', 'set'], 2, /cms site set <option> <value>/],
    [['site', 'set', 'name'], 2, /cms site set <option> <value>/],
    [['site', 'set', 'name', 'a', 'b'], 2, /too many arguments/],
    [['site', 'set', 'no_such_option', '1'], 1, /unknown option "no_such_option"/],
    [['site', 'get', 'no_such_option'], 1, /unknown option "no_such_option"/],
    [['site', 'set', 'timezone_string', 'Mars/Olympus_Mons'], 1, /not a valid IANA time zone/],
    [['site', 'set', 'timezone_string', '+05:00'], 1, /not a valid IANA time zone/],
    [['site', 'set', 'posts_per_page', 'many'], 1, /expected an integer/],
    [['site', 'set', 'posts_per_page', '2.5'], 1, /expected an integer/],
    [['site', 'set', 'posts_per_page', '0'], 1, /at least 1/],
    [['site', 'set', 'show_on_front', 'home'], 1, /must be one of "posts", "page"/],
    [['site', 'set', 'blog_public', 'true'], 1, /expected an integer/],
    [['site', 'set', 'posts_per_page', '[1]'], 1, /expected an integer, got an array/],
    [['site', 'set', 'posts_per_page', '{"a":1}'], 1, /expected an integer, got an object/],
    [['migrate', 'now'], 2, /unexpected argument "now"/],
  ]
  for (const [argv, code, message] of cases) {
    const r = await exec(argv)
    t.equal(r.code, code, `cms ${argv.join(' ')}`)
    t.match(r.stderr.trimEnd(), message)
    t.equal(r.stderr.split('\n').length, 2, 'exactly one line')
    t.equal(r.stdout, '')
  }
  t.equal(opened(), 0, 'invalid input never opens the database')
})

t.test('migrate, site get, site set', async (t) => {
  const store = await openTestStore({ migrate: false })
  t.teardown(() => store.close())
  const { exec } = inProcess(store)

  const early = await exec(['site', 'get', 'name'])
  t.equal(early.code, 1)
  t.equal(early.stderr, 'cms: the database is not migrated yet (run: cms migrate)\n')

  t.match(await exec(['migrate']), { code: 0, stdout: /Database migrated/ })
  t.match(await exec(['migrate']), { code: 0 }, 'again')

  const all = await exec(['site', 'get'])
  t.equal(all.code, 0)
  const options = JSON.parse(all.stdout) as Record<string, unknown>
  t.match(options, { name: 'My CMS Site', posts_per_page: 10, timezone_string: 'UTC', blog_public: 1, url: '' })

  const sets: [string, string, string][] = [
    ['name', 'Hello World', 'Hello World'],
    ['description', 'null', 'null'], // not JSON null: a string option takes the text
    ['date_format', '{"a":1}', '{"a":1}'], // JSON that does not fit: the text itself
    ['posts_per_page', '25', '25'],
    ['posts_per_page', '"30"', '30'],
    ['gmt_offset', '-5', '-5'],
    ['gmt_offset', '5.5', '5.5'],
    ['timezone_string', 'europe/paris', 'Europe/Paris'],
    ['url', 'https://example.com/', 'https://example.com'],
    ['show_on_front', 'page', 'page'],
    ['page_on_front', '12', '12'],
    ['default_comment_status', 'closed', 'closed'],
    ['blog_public', '0', '0'],
  ]
  for (const [name, raw, shown] of sets) {
    const r = await exec(['site', 'set', name, raw])
    t.same(r, { code: 0, stdout: `${shown}\n`, stderr: '' }, `set ${name} ${raw}`)
  }
  t.equal((await exec(['site', 'get', 'name'])).stdout, 'Hello World\n')
  t.equal((await exec(['site', 'get', 'name', '--json'])).stdout, '"Hello World"\n')
  t.equal((await exec(['site', 'get', 'description', '--json'])).stdout, '"null"\n')
  t.equal((await exec(['site', 'get', 'posts_per_page'])).stdout, '30\n')
  const after = JSON.parse((await exec(['site', 'get'])).stdout) as Record<string, unknown>
  t.match(after, {
    name: 'Hello World',
    description: 'null',
    posts_per_page: 30,
    gmt_offset: '5.5',
    timezone_string: 'Europe/Paris',
    url: 'https://example.com',
    blog_public: 0,
  })
})
