// test-all: first pass only. No database: a second pass (scripts/test-run.mjs)
// would repeat it exactly.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { defaultTemplatesDir, loadEnvFile, redactUrl, SettingError, storeErrorLine, storeSettingsFromEnv } from '../src/index.js'

t.test('storeSettingsFromEnv', async (t) => {
  // Every embedded database starts from the install's migrated templates unless told otherwise (CMS_PGLITE_TEMPLATES).
  const templates = defaultTemplatesDir
  t.same(storeSettingsFromEnv({ INIT_CWD: '/repo' }), { dataDir: '/repo/.data', templates })
  t.same(storeSettingsFromEnv({ INIT_CWD: '/repo', CMS_DATA_DIR: 'var/db' }), { dataDir: '/repo/var/db', templates })
  t.same(storeSettingsFromEnv({ INIT_CWD: '/repo', CMS_DATA_DIR: '/abs/dir' }), { dataDir: '/abs/dir', templates })
  t.equal(storeSettingsFromEnv({}).dataDir, `${process.cwd()}/.data`, 'falls back to cwd')
  t.same(storeSettingsFromEnv({ INIT_CWD: '/repo', DATABASE_URL: 'postgres://u@h/db', CMS_DB_POOL_SIZE: '4' }), {
    dataDir: '/repo/.data',
    databaseUrl: 'postgres://u@h/db',
    poolSize: 4,
    templates
  })
  t.same(storeSettingsFromEnv({ INIT_CWD: '/repo', DATABASE_URL: '' }), { dataDir: '/repo/.data', templates }, 'empty url = unset')
  t.equal(storeSettingsFromEnv({ DATABASE_URL: 'postgresql:///cms?host=/run/postgresql' }).databaseUrl, 'postgresql:///cms?host=/run/postgresql', 'a socket URL')
  t.same(storeSettingsFromEnv({ INIT_CWD: '/repo', CMS_PGLITE_TEMPLATES: 'off' }), { dataDir: '/repo/.data' }, 'templates off: initdb')
  t.equal(storeSettingsFromEnv({ INIT_CWD: '/repo', CMS_PGLITE_TEMPLATES: 'var/templates' }).templates, '/repo/var/templates', 'a relative templates directory is the base directory\'s')
  t.equal(storeSettingsFromEnv({ INIT_CWD: '/repo', CMS_PGLITE_TEMPLATES: ' ' }).templates, templates, 'blank: the default')
})

t.test('a bad store setting is one line naming it, its value and what is allowed', async (t) => {
  const message = (env: NodeJS.ProcessEnv): string => {
    try {
      storeSettingsFromEnv(env)
    } catch (err) {
      t.type(err, SettingError)
      return (err as Error).message
    }
    return 'no error'
  }
  t.equal(message({ CMS_DB_POOL_SIZE: 'lots' }), 'CMS_DB_POOL_SIZE must be a positive integer, got "lots"')
  t.equal(message({ CMS_DB_POOL_SIZE: '0' }), 'CMS_DB_POOL_SIZE must be a positive integer, got "0"')
  t.equal(
    message({ DATABASE_URL: 'mysql://root:secret@db/cms' }),
    'DATABASE_URL must be a postgres://user:password@host:port/database URL (or unset for the embedded database), got "mysql://root:***@db/cms"',
    'the password is not shown'
  )
  t.equal(redactUrl('postgres://u:p@h:5/db'), 'postgres://u:***@h:5/db')
})

t.test('an unreachable DATABASE_URL names the host and port and the setting', async (t) => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })
  t.equal(
    storeErrorLine(new Error('Failed query: select 1', { cause: refused }), 'postgres://cms:secret@db.example:6543/cms'),
    'cannot reach the PostgreSQL server at db.example:6543 (from DATABASE_URL): connection refused'
  )
  t.equal(
    storeErrorLine(Object.assign(new Error('getaddrinfo ENOTFOUND nowhere'), { code: 'ENOTFOUND' }), 'postgres://nowhere/cms'),
    'cannot reach the PostgreSQL server at nowhere:5432 (from DATABASE_URL): host not found'
  )
  t.equal(storeErrorLine(new Error('something else'), 'postgres://h/db'), undefined, 'other errors are left to the caller')
})

t.test('.env is read without replacing what is set', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cms-env-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const env: NodeJS.ProcessEnv = { INIT_CWD: dir, CMS_DATA_DIR: 'kept' }
  t.equal(loadEnvFile(env), undefined, 'no file, nothing read')
  writeFileSync(join(dir, '.env'), 'CMS_DATA_DIR=from-file\nCMS_DB_POOL_SIZE=3\n# a comment\nCMS_BASE_URL="http://x.example"\n')
  t.equal(loadEnvFile(env), join(dir, '.env'))
  t.equal(env.CMS_DATA_DIR, 'kept', 'the environment wins')
  t.equal(env.CMS_DB_POOL_SIZE, '3')
  t.equal(env.CMS_BASE_URL, 'http://x.example')
  t.throws(() => loadEnvFile({ INIT_CWD: dir, CMS_ENV_FILE: 'missing.env' }), { message: 'CMS_ENV_FILE must be the path of an existing file, got "missing.env"' })
})
