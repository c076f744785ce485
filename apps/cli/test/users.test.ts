// `cms user` and `cms app-password` in-process against a test store (PGlite
// in memory, or a fresh PostgreSQL database with CMS_TEST_DATABASE_URL);
// what they wrote is then checked through the store. cli.test.ts runs the
// same entry point as a child process.
import t from 'tap'
import { inProcess } from './helpers.js'
import type { Store } from '@cms/store'
import { openTestStore } from '@cms/store/testing'
import { authenticateBasic, listUsers } from '@cms/core'

t.test('cms user and cms app-password', async (t) => {
  const db = await openTestStore({ migrate: false })
  t.teardown(() => db.close())
  const { exec } = inProcess(db)
  const withDb = async <T>(fn: (store: Store) => Promise<T>): Promise<T> => await fn(db)

  const migrated = await exec(['migrate'])
  t.equal(migrated.code, 0, migrated.stderr)

  t.test('users', async (t) => {
    const empty = await exec(['user', 'list'])
    t.equal(empty.code, 0, empty.stderr)
    t.match(empty.stdout, /No users yet\. Create the first administrator with: cms user create/)

    const admin = await exec(['user', 'create', 'admin', '--email', 'admin@example.com', '--role', 'administrator', '--password', 'admin-pw-123'])
    t.equal(admin.code, 0, admin.stderr)
    t.match(admin.stdout, /^Created user 1 "admin" \(administrator\)\.\n/)
    t.notMatch(admin.stdout, /admin-pw-123/, 'a given password is not echoed')

    const json = await exec(['user', 'create', 'writer', '--email', 'writer@example.com', '--role', 'author', '--role', 'editor', '--name', 'Wendy Writer', '--json'])
    t.equal(json.code, 0, json.stderr)
    const made = JSON.parse(json.stdout) as { id: number; login: string; roles: string[]; password: string }
    t.match(made, { id: 2, login: 'writer', roles: ['author', 'editor'] })
    t.match(made.password, /^[A-Za-z0-9]{20}$/, 'a generated sign-in password is printed once')

    for (const [args, message] of [
      [['user', 'create', 'ADMIN', '--email', 'x@example.com', '--role', 'subscriber'], /^cms: Sorry, that username already exists!$/],
      [['user', 'create', 'other', '--email', 'Admin@Example.com', '--role', 'subscriber'], /^cms: Sorry, that email address is already used!$/],
      [['user', 'create', 'bad:name', '--email', 'b@example.com', '--role', 'subscriber'], /illegal characters/],
    ] as const) {
      const r = await exec([...args])
      t.equal(r.code, 1, args.join(' '))
      t.match(r.stderr.trimEnd(), message, args.join(' '))
      t.equal(r.stderr.trimEnd().split('\n').length, 1, 'one line')
    }
    // These are refused before the database is opened.
    const usage = await Promise.all([
      [['user', 'create', 'wiz', '--email', 'wiz@example.com', '--role', 'wizard'], /^cms: The role wizard does not exist\./],
      [['user', 'create', 'nomail', '--role', 'subscriber'], /^cms: --email is required/],
      [['user', 'create', 'norole', '--email', 'n@example.com'], /^cms: --role is required/],
      [['user', 'frob'], /^cms: unknown subcommand "frob"/],
    ].map(async ([args, message]) => ({ args: args as string[], message: message as RegExp, r: await exec(args as string[]) })))
    for (const { args, message, r } of usage) {
      t.equal(r.code, 2, args.join(' '))
      t.match(r.stderr.trimEnd(), message, args.join(' '))
      t.equal(r.stderr.trimEnd().split('\n').length, 1, 'one line')
    }

    const list = await exec(['user', 'list'])
    t.equal(list.code, 0)
    const lines = list.stdout.trimEnd().split('\n')
    t.match(lines[0], /^ID\s+LOGIN\s+EMAIL\s+ROLES\s+REGISTERED$/)
    t.match(lines[1], /^1\s+admin\s+admin@example\.com\s+administrator\s+\d{4}-/)
    t.match(lines[2], /^2\s+writer\s+writer@example\.com\s+author,editor\s+/)
    t.equal(lines.length, 3, 'failed creates left nothing')
    const listJson = JSON.parse((await exec(['user', 'list', '--json'])).stdout) as Array<{ login: string; name: string }>
    t.same(listJson.map((u) => [u.login, u.name]), [['admin', 'admin'], ['writer', 'Wendy Writer']])

    const stored = await withDb((store) => listUsers(store, { orderby: 'id' }))
    t.same(stored.users.map((u) => u.hasPassword), [true, true], 'both can use the sign-in page')
  })

  t.test('application passwords', async (t) => {
    const made = await exec(['app-password', 'create', 'admin', 'Deploy script'])
    t.equal(made.code, 0, made.stderr)
    const chunked = /\n {4}([A-Za-z0-9]{4}(?: [A-Za-z0-9]{4}){5})\n/.exec(made.stdout)?.[1]
    t.ok(chunked, 'the password is printed in groups of four')
    t.match(made.stdout, /It is shown once/)

    const json = await exec(['app-password', 'create', 'writer@example.com', 'CI', '--json'])
    t.equal(json.code, 0, json.stderr)
    const ci = JSON.parse(json.stdout) as { uuid: string; password: string }
    t.same(Object.keys(ci), ['uuid', 'password'])
    t.match(ci.password, /^[A-Za-z0-9]{24}$/)

    await withDb(async (store) => {
      const caller = await authenticateBasic(store, { login: 'admin', password: chunked! }, '127.0.0.1')
      t.equal(caller.id, 1, 'the printed password authenticates')
      const writer = await authenticateBasic(store, { login: 'writer', password: ci.password }, '127.0.0.1')
      t.equal(writer.appPasswordUuid, ci.uuid)
    })

    const list = await exec(['app-password', 'list', 'writer'])
    t.equal(list.code, 0)
    t.match(list.stdout, new RegExp(`^${ci.uuid}  CI  created \\d{4}-\\d\\d-\\d\\dT[\\d:]+  last used \\d{4}-`, 'm'))
    t.notMatch(list.stdout, ci.password, 'never the password')
    const listJson = JSON.parse((await exec(['app-password', 'list', 'writer', '--json'])).stdout) as Array<Record<string, unknown>>
    t.same(Object.keys(listJson[0]!), ['uuid', 'app_id', 'name', 'created', 'last_used', 'last_ip'])
    t.equal(listJson[0]!.last_ip, '127.0.0.1')

    const revoked = await exec(['app-password', 'revoke', 'writer', ci.uuid])
    t.equal(revoked.code, 0, revoked.stderr)
    t.equal(revoked.stdout, `Revoked application password "CI" (${ci.uuid}).\n`)
    t.equal((await exec(['app-password', 'list', 'writer'])).stdout, 'No application passwords.\n')
    await withDb(async (store) => {
      await t.rejects(authenticateBasic(store, { login: 'writer', password: ci.password }, '127.0.0.1'), { code: 'incorrect_password' },
        'a revoked password is refused')
    })

    for (const [args, message] of [
      [['app-password', 'revoke', 'writer', ci.uuid], /^cms: no application password .* for writer/],
      [['app-password', 'create', 'ghost', 'x'], /^cms: unknown user "ghost"/],
    ] as const) {
      const r = await exec([...args])
      t.equal(r.code, 1, args.join(' '))
      t.match(r.stderr.trimEnd(), message, args.join(' '))
    }
    const usage = await Promise.all([
      [['app-password', 'create', 'admin', '   '], /^cms: An application name is required/],
      [['app-password', 'create', 'admin', 'x', '--app-id', 'nope'], /^cms: The application ID must be a UUID\./],
      [['app-password', 'create', 'admin'], /^cms: usage: cms app-password create <login> <name>/],
    ].map(async ([args, message]) => ({ args: args as string[], message: message as RegExp, r: await exec(args as string[]) })))
    for (const { args, message, r } of usage) {
      t.equal(r.code, 2, args.join(' '))
      t.match(r.stderr.trimEnd(), message, args.join(' '))
    }
  })

  t.test('help', async (t) => {
    const [help, groupHelp] = await Promise.all([exec(['--help']), exec(['app-password', '--help'])])
    t.match(help.stdout, /\n\s+user\s+create, list, change and delete users/)
    t.match(help.stdout, /\n\s+app-password\s+create, list and revoke application passwords/)
    t.equal(groupHelp.code, 0)
    t.match(groupHelp.stdout, /cms app-password revoke <login> <uuid>/)
  })
})
