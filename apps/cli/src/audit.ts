/**
 * The audit log's entry for a command line that writes (a group's
 * `writes` names its subcommands that do): who (`cli` and the OS user),
 * which command (`cms user create`), its target (the argument after the
 * subcommand: a login, a slug, an option's name), the names of the options
 * given (never their values: `--password` is named, not kept) and the exit
 * code. The command's own store is kept open for it (one database session:
 * the embedded database is slow to open), and the entry is written when
 * the command ends, succeeded or failed, unless it never opened the
 * database (nothing was written). `CMS_AUDIT_LOG=off` writes none.
 * The command runs as one write of the core's audit outbox (`runWrite`):
 * the first transaction it commits carries its entry (exit code 0, error
 * code `unanswered`), so a command killed after its change committed still
 * leaves one, moved in by a service; the entry written at the end replaces
 * it, in the same statement.
 */
import { userInfo } from 'node:os'
import { appendAuditEntries, carryOn, runWrite, UNANSWERED, type AuditEntry, type PendingWrite } from '@cms/core/accounts'
import type { Store } from '@cms/store'
import type { CliContext, CommandGroup } from './command.js'

export interface AuditedCall {
  /** The context to run the command with (its store opened once, kept for the entry). */
  ctx: CliContext
  /** Runs the command as one audited write (what it commits carries its entry). */
  within: <T>(run: () => Promise<T>) => Promise<T>
  /** Writes the entry (when the database was opened) and closes the store. */
  finish: (code: number, failure?: unknown) => Promise<void>
}

/** Options that change nothing the entry should say. */
const NOT_CHANGES = new Set(['help', 'h', 'json'])

function osUser (env: NodeJS.ProcessEnv): string {
  try {
    return userInfo().username
  } catch {
    return env.USER ?? env.USERNAME ?? 'unknown'
  }
}

/** The call as the entry shows it, or undefined when it does not write. */
function callOf (group: CommandGroup, args: readonly string[]): Pick<AuditEntry, 'route' | 'path' | 'objectType' | 'objectId' | 'fields'> | undefined {
  const writes = group.writes ?? []
  const every = writes.includes('*')
  const at = args.findIndex((a) => writes.includes(a))
  if (!every && at === -1) return undefined
  const action = at === -1 ? undefined : args[at]
  const target = at === -1 ? undefined : args[at + 1]
  const objectId = target !== undefined && !target.startsWith('-') ? target.slice(0, 200) : null
  const fields = [...new Set(args.filter((a) => /^--?[A-Za-z]/.test(a)).map((a) => a.replace(/^--?/, '').split('=')[0]!))].filter((f) => !NOT_CHANGES.has(f))
  const route = `cms ${group.name}${action === undefined ? '' : ` ${action}`}`
  return { route, path: [route, ...(objectId === null ? [] : [objectId]), ...fields.map((f) => `--${f}`)].join(' '), objectType: group.name, objectId, fields }
}

/** The audited form of a call of `group`, or undefined when it writes nothing. */
export function audited (group: CommandGroup, args: readonly string[], ctx: CliContext, warn: (line: string) => void): AuditedCall | undefined {
  if (ctx.env.CMS_AUDIT_LOG === 'off') return undefined
  const call = callOf(group, args)
  if (call === undefined) return undefined
  let opened: Promise<Store> | undefined
  let pending: PendingWrite | undefined
  const wrapped: CliContext = {
    ...ctx,
    openStore: async () => {
      opened ??= ctx.openStore().then((store) => {
        carryOn(store)
        return store
      })
      // Closed by `finish`, after the entry is written.
      return { ...await opened, close: async () => {} }
    }
  }
  const entry = (status: number, errorCode: string | null): AuditEntry => ({
    at: new Date(),
    userId: 0,
    credential: 'cli',
    credentialId: osUser(ctx.env),
    ip: '',
    method: 'CLI',
    ...call,
    status,
    errorCode,
    values: {}
  })
  return {
    ctx: wrapped,
    within: async (run) => await runWrite(() => entry(0, UNANSWERED), async (p) => {
      pending = p
      try {
        return await run()
      } finally {
        p.done = true
      }
    }),
    finish: async (code, failure) => {
      if (opened === undefined) return
      let store: Store
      try {
        store = await opened
      } catch {
        return
      }
      try {
        const reason = (failure as { code?: unknown } | undefined)?.code
        const errorCode = failure === undefined ? null : typeof reason === 'string' ? reason.slice(0, 200) : 'cms_command_failed'
        await appendAuditEntries(store, [entry(code, errorCode)], [pending?.carried === true ? pending.key : null])
      } catch (err) {
        // A failed command has said why already (one line); a command that worked says the entry is missing.
        if (failure === undefined) warn(`cms: the audit log entry was not written: ${String((err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message).split('\n')[0]}`)
      } finally {
        await store.close()
      }
    }
  }
}
