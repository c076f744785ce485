import { parseArgs } from 'node:util'
import type { Store } from '@cms/store'
import {
  chunkPassword,
  createApplicationPassword,
  findUserByLogin,
  isUuid,
  listApplicationPasswords,
  revokeApplicationPassword,
} from '@cms/core/accounts'
import type { UserRecord } from '@cms/core/accounts'
import { argvForParse, parseOrUsage, UsageError, withStore } from '../command.js'
import type { CommandGroup } from '../command.js'

const usage = `Usage:
  cms app-password create <login> <name> [--app-id <uuid>] [--json]
  cms app-password list <login> [--json]
  cms app-password revoke <login> <uuid>

<login> is a user's login or e-mail address.

create  makes an application password and prints it once (only a keyed hash
        is stored). Clients send it with HTTP Basic as <login>:<password>;
        the spaces between the groups of four are optional.
        --json prints {"uuid": ..., "password": ...}.
list    prints the user's application passwords (never the passwords).
revoke  deletes one; requests using it are refused from then on.

Flags:
  --json      print JSON instead of text
  -h, --help  show this help`

/** Thrown for a login or uuid that does not exist: exit 1 with one line. */
class NotFound extends Error {}

async function userOf (store: Store, login: string): Promise<UserRecord> {
  const user = await findUserByLogin(store, login)
  if (!user) throw new NotFound(`unknown user "${login}" (see: cms user list)`)
  return user
}

function date (value: Date | null): string {
  return value === null ? 'never' : value.toISOString().slice(0, 19)
}

export const appPasswordCommand: CommandGroup = {
  name: 'app-password',
  summary: 'create, list and revoke application passwords (API credentials)',
  writes: ['create', 'revoke'],
  usage,
  async run (args, ctx) {
    const { values, positionals } = parseOrUsage('app-password', () =>
      parseArgs({
        args: argvForParse(args),
        options: {
          help: { type: 'boolean', short: 'h' },
          json: { type: 'boolean' },
          'app-id': { type: 'string' },
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
        if (rest.length !== 2) throw new UsageError('usage: cms app-password create <login> <name>', 'app-password')
        const [login, name] = rest as [string, string]
        // Checked before the database is opened.
        if (name.trim() === '') throw new UsageError('An application name is required to create an application password.', 'app-password')
        const appId = values['app-id']
        if (appId !== undefined && appId !== '' && !isUuid(appId)) throw new UsageError('The application ID must be a UUID.', 'app-password')
        const { user, uuid, password } = await withStore(ctx, async (store) => {
          const user = await userOf(store, login)
          return { user, ...(await createApplicationPassword(store, user.id, { name, appId })) }
        })
        if (values.json) {
          ctx.out(JSON.stringify({ uuid, password }))
          return 0
        }
        ctx.out(`Application password "${name.trim()}" for ${user.login} (uuid ${uuid}):

    ${chunkPassword(password)}

It is shown once: store it now. Send it with HTTP Basic as ${user.login}:<password>.`)
        return 0
      }
      case 'list': {
        if (rest.length !== 1) throw new UsageError('usage: cms app-password list <login>', 'app-password')
        const items = await withStore(ctx, async (store) => listApplicationPasswords(store, (await userOf(store, rest[0]!)).id))
        if (values.json) {
          ctx.out(JSON.stringify(items.map((i) => ({
            uuid: i.uuid,
            app_id: i.appId,
            name: i.name,
            created: i.created.toISOString(),
            last_used: i.lastUsed?.toISOString() ?? null,
            last_ip: i.lastIp,
          }))))
          return 0
        }
        if (items.length === 0) {
          ctx.out('No application passwords.')
          return 0
        }
        for (const i of items) {
          ctx.out(`${i.uuid}  ${i.name}  created ${date(i.created)}  last used ${date(i.lastUsed)}${i.lastIp ? ` from ${i.lastIp}` : ''}`)
        }
        return 0
      }
      case 'revoke': {
        if (rest.length !== 2) throw new UsageError('usage: cms app-password revoke <login> <uuid>', 'app-password')
        const [login, uuid] = rest as [string, string]
        const gone = await withStore(ctx, async (store) => revokeApplicationPassword(store, (await userOf(store, login)).id, uuid))
        if (!gone) throw new NotFound(`no application password ${uuid} for ${login} (see: cms app-password list ${login})`)
        ctx.out(`Revoked application password "${gone.name}" (${gone.uuid}).`)
        return 0
      }
      case undefined:
        throw new UsageError('missing subcommand (create, list or revoke)', 'app-password')
      default:
        throw new UsageError(`unknown subcommand "${action}" (expected create, list or revoke)`, 'app-password')
    }
  },
}
