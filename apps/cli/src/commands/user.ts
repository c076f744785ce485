import { randomInt } from 'node:crypto'
import { parseArgs } from 'node:util'
import { createUser, deleteUser, findUserById, findUserByLogin, isRole, listUsers, ROLES, updateUser } from '@cms/core/accounts'
import type { Store } from '@cms/store'
import { argvForParse, parseOrUsage, UsageError, withStore } from '../command.js'
import type { CommandGroup } from '../command.js'

const usage = `Usage:
  cms user create <login> --email <address> --role <role> [--password <password>] [--name <display name>] [--json]
  cms user list [--json]
  cms user set-password <login> [--password <password>] [--json]
  cms user set-role <login> <role> [<role>...]
  cms user delete <login> [--reassign <user id>]

<login> is a user's login or e-mail address.

create        adds a user. --role may be given more than once. Without
              --password a sign-in password is generated and printed once
              (the sign-in page /cms-admin/login needs it; API clients use
              application passwords: see cms app-password --help).
list          prints every user.
set-password  sets the user's sign-in password (generated and printed once
              without --password). Application passwords are not changed.
set-role      replaces the user's roles.
delete        deletes the user, their application passwords and sessions;
              their posts go to --reassign, or are deleted without it.

Roles: ${ROLES.join(', ')}

Flags:
  --json      print JSON instead of text
  -h, --help  show this help`

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789'

function generatedPassword (): string {
  let out = ''
  for (let i = 0; i < 20; i++) out += ALPHABET[randomInt(ALPHABET.length)]
  return out
}

function table (rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n')
}

/** The user named by a login or e-mail address; an unknown one is one line, exit 1. */
async function userOf (store: Store, login: string) {
  const user = await findUserByLogin(store, login)
  if (!user) throw new Error(`unknown user "${login}" (see: cms user list)`)
  return user
}

export const userCommand: CommandGroup = {
  name: 'user',
  summary: 'create, list, change and delete users (the first administrator, for instance)',
  usage,
  writes: ['create', 'set-password', 'set-role', 'delete'],
  async run (args, ctx) {
    const { values, positionals } = parseOrUsage('user', () =>
      parseArgs({
        args: argvForParse(args),
        options: {
          help: { type: 'boolean', short: 'h' },
          json: { type: 'boolean' },
          email: { type: 'string' },
          role: { type: 'string', multiple: true },
          password: { type: 'string' },
          name: { type: 'string' },
          reassign: { type: 'string' },
        },
        allowPositionals: true,
      })
    )
    const [action, ...rest] = positionals
    if (values.help || action === 'help') {
      ctx.out(usage)
      return 0
    }
    switch (action) {
      case 'create': {
        if (rest.length !== 1) throw new UsageError('usage: cms user create <login> --email <address> --role <role>', 'user')
        if (values.email === undefined) throw new UsageError('--email is required', 'user')
        if (values.role === undefined || values.role.length === 0) throw new UsageError(`--role is required (one of ${ROLES.join(', ')})`, 'user')
        // Checked before the database is opened.
        const unknown = values.role.find((r) => !isRole(r))
        if (unknown !== undefined) throw new UsageError(`The role ${unknown} does not exist. Roles: ${ROLES.join(', ')}`, 'user')
        const generated = values.password === undefined ? generatedPassword() : undefined
        const user = await withStore(ctx, (store) =>
          createUser(store, {
            login: rest[0]!,
            email: values.email!,
            roles: values.role!,
            password: values.password ?? generated,
            displayName: values.name,
          })
        )
        if (values.json) {
          ctx.out(JSON.stringify({ id: user.id, login: user.login, email: user.email, roles: user.roles, ...(generated ? { password: generated } : {}) }))
          return 0
        }
        ctx.out(`Created user ${user.id} "${user.login}" (${user.roles.join(', ') || 'no role'}).`)
        if (generated) ctx.out(`Sign-in password (shown once): ${generated}`)
        ctx.out(`Next: cms app-password create ${user.login} "<application name>"`)
        return 0
      }
      case 'list': {
        if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`, 'user')
        const { users } = await withStore(ctx, (store) => listUsers(store, { orderby: 'id', limit: 1_000_000 }))
        if (values.json) {
          ctx.out(JSON.stringify(users.map((u) => ({ id: u.id, login: u.login, email: u.email, name: u.displayName, roles: u.roles, registered: u.registered.toISOString() }))))
          return 0
        }
        if (users.length === 0) {
          ctx.out('No users yet. Create the first administrator with: cms user create <login> --email <address> --role administrator')
          return 0
        }
        ctx.out(table([
          ['ID', 'LOGIN', 'EMAIL', 'ROLES', 'REGISTERED'],
          ...users.map((u) => [String(u.id), u.login, u.email, u.roles.join(','), u.registered.toISOString().slice(0, 19)]),
        ]))
        return 0
      }
      case 'set-password': {
        if (rest.length !== 1) throw new UsageError('usage: cms user set-password <login> [--password <password>]', 'user')
        const generated = values.password === undefined ? generatedPassword() : undefined
        const user = await withStore(ctx, async (store) =>
          updateUser(store, (await userOf(store, rest[0]!)).id, { password: values.password ?? generated })
        )
        if (values.json) {
          ctx.out(JSON.stringify({ id: user.id, login: user.login, ...(generated ? { password: generated } : {}) }))
          return 0
        }
        ctx.out(`Sign-in password of ${user.login} (user ${user.id}) changed.`)
        if (generated) ctx.out(`New sign-in password (shown once): ${generated}`)
        return 0
      }
      case 'set-role': {
        if (rest.length < 2) throw new UsageError('usage: cms user set-role <login> <role> [<role>...]', 'user')
        const roles = rest.slice(1)
        const unknown = roles.find((r) => !isRole(r))
        if (unknown !== undefined) throw new UsageError(`The role ${unknown} does not exist. Roles: ${ROLES.join(', ')}`, 'user')
        const user = await withStore(ctx, async (store) => updateUser(store, (await userOf(store, rest[0]!)).id, { roles }))
        ctx.out(`${user.login} (user ${user.id}) now has the role${user.roles.length === 1 ? '' : 's'} ${user.roles.join(', ')}.`)
        return 0
      }
      case 'delete': {
        if (rest.length !== 1) throw new UsageError('usage: cms user delete <login> [--reassign <user id>]', 'user')
        const reassign = values.reassign === undefined ? null : Number(values.reassign)
        if (reassign !== null && (!Number.isInteger(reassign) || reassign < 1)) {
          throw new UsageError(`--reassign must be a user id (see: cms user list), got "${values.reassign}"`, 'user')
        }
        const { user, posts } = await withStore(ctx, async (store) => {
          const user = await userOf(store, rest[0]!)
          if (reassign !== null) {
            if (reassign === user.id) throw new Error('--reassign must name another user than the one deleted')
            if ((await findUserById(store, reassign)) === undefined) throw new Error(`--reassign: no user ${reassign} (see: cms user list)`)
          }
          await deleteUser(store, user.id, reassign)
          return { user, posts: reassign === null ? 'deleted' : `given to user ${reassign}` }
        })
        ctx.out(`Deleted user ${user.id} "${user.login}"; their posts were ${posts}.`)
        return 0
      }
      case undefined:
        throw new UsageError('missing subcommand (create, list, set-password, set-role or delete)', 'user')
      default:
        throw new UsageError(`unknown subcommand "${action}" (expected create, list, set-password, set-role or delete)`, 'user')
    }
  },
}
