// `cms user set-password`, `set-role` and `delete [--reassign]` in-process
// against a test store; what they wrote is checked through the store.
import t from 'tap'
import { inProcess } from './helpers.js'
import { openTestStore } from '@cms/store/testing'
import { coreMigrations, createApplicationPassword, findUserById, findUserByLogin, findUserForSignIn, listApplicationPasswords } from '@cms/core'

t.test('set-password, set-role and delete', async (t) => {
  const db = await openTestStore({ migrations: [coreMigrations] })
  t.teardown(() => db.close())
  const { exec } = inProcess(db)
  const ok = async (args: string[]) => {
    const r = await exec(args)
    t.equal(r.code, 0, `cms ${args.join(' ')}: ${r.stderr}`)
    return r
  }
  await ok(['user', 'create', 'admin', '--email', 'admin@example.com', '--role', 'administrator', '--password', 'first-pw-123'])
  await ok(['user', 'create', 'writer', '--email', 'writer@example.com', '--role', 'author', '--password', 'writer-pw-1'])
  const writer = (await findUserByLogin(db, 'writer'))!
  await createApplicationPassword(db, writer.id, { name: 'kept' })

  t.test('set-password', async (t) => {
    const before = (await findUserForSignIn(db, 'admin'))!.passHash
    const given = await ok(['user', 'set-password', 'admin', '--password', 'second-pw-456'])
    t.match(given.stdout, /^Sign-in password of admin \(user 1\) changed\.\n$/)
    t.notMatch(given.stdout, /second-pw-456/, 'a given password is not echoed')
    const after = (await findUserForSignIn(db, 'admin'))!.passHash
    t.not(after, before, 'the stored hash changed')
    const generated = JSON.parse((await ok(['user', 'set-password', 'admin@example.com', '--json'])).stdout) as { password: string }
    t.match(generated.password, /^[A-Za-z0-9]{20}$/, 'generated and printed once')
    const unknown = await exec(['user', 'set-password', 'nobody'])
    t.equal(unknown.code, 1)
    t.equal(unknown.stderr, 'cms: unknown user "nobody" (see: cms user list)\n')
  })

  t.test('set-role', async (t) => {
    const r = await ok(['user', 'set-role', 'writer', 'editor'])
    t.match(r.stdout, /writer \(user 2\) now has the role editor\./)
    t.same((await findUserByLogin(db, 'writer'))!.roles, ['editor'])
    const bad = await exec(['user', 'set-role', 'writer', 'overlord'])
    t.equal(bad.code, 2)
    t.match(bad.stderr, /^cms: The role overlord does not exist\. Roles: administrator, /)
    t.same((await findUserByLogin(db, 'writer'))!.roles, ['editor'], 'unchanged after a refused role')
    t.equal((await exec(['user', 'set-role', 'writer'])).code, 2, 'a role is required')
  })

  t.test('delete with --reassign', async (t) => {
    for (const [args, message] of [
      [['user', 'delete', 'writer', '--reassign', 'x'], /^cms: --reassign must be a user id/],
      [['user', 'delete', 'writer', '--reassign', '99'], /^cms: --reassign: no user 99/],
      [['user', 'delete', 'writer', '--reassign', String(writer.id)], /^cms: --reassign must name another user/],
    ] as const) {
      const r = await exec([...args])
      t.not(r.code, 0, args.join(' '))
      t.match(r.stderr, message)
    }
    t.ok(await findUserById(db, writer.id), 'still there after refused deletions')
    const r = await ok(['user', 'delete', 'writer', '--reassign', '1'])
    t.equal(r.stdout, `Deleted user ${writer.id} "writer"; their posts were given to user 1.\n`)
    t.equal(await findUserById(db, writer.id), undefined, 'gone')
    t.same(await listApplicationPasswords(db, writer.id), [], 'their application passwords are gone')
  })
})
