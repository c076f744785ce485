// The audit log's entries for command lines that write (src/audit.ts), run
// in-process against a test store: one per writing call (failed ones too),
// none for reads or bad command lines, option names without their values,
// and no password in any entry.
import { userInfo } from 'node:os'
import t from 'tap'
import { openTestStore } from '@cms/store/testing'
import { inProcess } from './helpers.js'

interface Row { user_id: number, credential: string, credential_id: string, method: string, route: string, path: string, object_type: string, object_id: string | null, status: number, error_code: string | null, fields: string[] }

t.test('a command that writes leaves one entry; reads and usage errors none', async (t) => {
  const db = await openTestStore({ migrate: false })
  t.teardown(() => db.close())
  const { exec } = inProcess(db)
  const rows = async (): Promise<Row[]> => await db.execute<Row & Record<string, unknown>>('select * from audit_log order by id')
  t.equal((await exec(['migrate'])).code, 0)

  const password = 'Cli-Secret-5d8e21'
  const made = await exec(['user', 'create', 'auditor', '--email', 'auditor@example.com', '--role', 'administrator', '--password', password])
  t.equal(made.code, 0, made.stderr)
  const app = await exec(['app-password', 'create', 'auditor', 'Deploy', '--json'])
  t.equal(app.code, 0, app.stderr)
  const appPassword = JSON.parse(app.stdout).password as string
  t.equal((await exec(['user', 'list'])).code, 0)
  t.equal((await exec(['user', 'create', 'nobody', '--role', 'subscriber'])).code, 2, 'a usage error')
  t.equal((await exec(['user', 'delete', 'ghost'])).code, 1, 'a failure')

  const entries = await rows()
  const me = userInfo().username
  t.same(entries.map((e) => [e.route, e.object_type, e.object_id, e.status, e.error_code]), [
    ['cms migrate', 'migrate', null, 0, null],
    ['cms user create', 'user', 'auditor', 0, null],
    ['cms app-password create', 'app-password', 'auditor', 0, null],
    ['cms user delete', 'user', 'ghost', 1, 'cms_command_failed']
  ], 'the writing calls, failed ones included; not the list nor the usage error')
  for (const e of entries) t.match(e, { user_id: 0, credential: 'cli', credential_id: me, method: 'CLI' })
  t.same(entries[1]!.fields, ['email', 'role', 'password'], 'the options given, by name')
  t.equal(entries[1]!.path, 'cms user create auditor --email --role --password', 'the command line without option values')
  t.same(entries[2]!.fields, [], '--json says nothing of the change')

  const text = (await db.execute<{ t: string }>('select row_to_json(a)::text as t from audit_log a')).map((r) => r.t).join('\n')
  t.notOk(text.includes(password), 'no entry holds the sign-in password')
  t.notOk(text.includes(appPassword) || text.includes(appPassword.replace(/\s/g, '')), 'nor the application password')
  t.notOk(text.includes('auditor@example.com'), 'nor an option value')

  const off = inProcess(db, { CMS_AUDIT_LOG: 'off' })
  t.equal((await off.exec(['user', 'set-role', 'auditor', 'editor'])).code, 0)
  t.equal((await rows()).length, 4, 'CMS_AUDIT_LOG=off: none')
})
