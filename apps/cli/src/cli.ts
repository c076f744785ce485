/** Dispatch of `cms <group> ...` to a command group, with usage and errors. */
import { OptionError, StoreLockedError, SettingError, storeErrorLine } from '@cms/store'
import { defaultContext, UsageError } from './command.js'
import type { CliContext, CommandGroup } from './command.js'
import { audited } from './audit.js'

/**
 * The groups a command line needs: the one it names when it is the CLI's
 * own (loaded alone: builtin.ts), else all of them (help, a package's
 * command, an unknown one; the packages' commands import every package).
 */
async function groupsFor (first: string | undefined): Promise<readonly CommandGroup[]> {
  const own = first === undefined ? undefined : await (await import('./builtin.js')).builtinGroup(first)
  if (own !== undefined) return [own]
  return await (await import('./registry.js')).commandGroups()
}

export function usage (groups: readonly CommandGroup[]): string {
  const width = Math.max(...groups.map((g) => g.name.length))
  return `Usage: cms <command> [arguments]     (from the repo root: pnpm cms <command>)

Commands:
${groups.map((g) => `  ${g.name.padEnd(width)}  ${g.summary}`).join('\n')}

Run "cms <command> --help" for a command's arguments.

Environment:
  DATABASE_URL   PostgreSQL connection URL (default: embedded PGlite database)
  CMS_DATA_DIR   directory of the embedded database (default: .data)
  Read from the environment and from .env in the current directory, as the
  service reads them (CMS_ENV_FILE names another file).`
}

export interface RunIo {
  ctx?: CliContext;
  /** Receives the one-line error message. */
  err?: (line: string) => void;
}

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function run (argv: string[], io: RunIo = {}, given?: readonly CommandGroup[]): Promise<number> {
  const ctx = io.ctx ?? defaultContext()
  const err = io.err ?? ((line: string) => process.stderr.write(`${line}\n`))
  const [first, ...rest] = argv
  const groups = given ?? await groupsFor(first)
  try {
    if (first === undefined) {
      err(usage(groups))
      return 2
    }
    if (first === '-h' || first === '--help' || first === 'help') {
      const group = rest[0] === undefined ? undefined : groups.find((g) => g.name === rest[0])
      if (rest[0] !== undefined && !group) throw new UsageError(`unknown command "${rest[0]}"`)
      ctx.out(group ? group.usage : usage(groups))
      return 0
    }
    const group = groups.find((g) => g.name === first)
    if (!group) {
      throw new UsageError(
        first.startsWith('-') ? `unknown option "${first}"` : `unknown command "${first}"`
      )
    }
    // A call that writes leaves an entry in the audit log (audit.ts), whether it succeeds or fails.
    const call = audited(group, rest, ctx, err)
    if (call === undefined) return (await group.run(rest, ctx)) ?? 0
    let code: number
    try {
      code = (await call.within(async () => await group.run(rest, call.ctx))) ?? 0
    } catch (e) {
      await call.finish(e instanceof UsageError ? 2 : 1, e)
      throw e
    }
    await call.finish(code)
    return code
  } catch (e) {
    err(`cms: ${errorLine(e)}`)
    return e instanceof UsageError ? 2 : 1
  }
}

/** One line describing an error, with a hint for the common cases. */
function errorLine (e: unknown): string {
  if (e instanceof UsageError) {
    return `${e.message} (see: cms ${e.group ? `${e.group} ` : ''}--help)`
  }
  if (e instanceof OptionError || e instanceof StoreLockedError || e instanceof SettingError) return e.message
  // The same line the service prints at start.
  const known = storeErrorLine(e, process.env.DATABASE_URL?.trim() || undefined)
  if (known !== undefined) return known
  const error = e as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } }
  // drizzle wraps driver errors ("Failed query: ...") with the driver error as cause
  const pgCode = error.cause?.code ?? error.code
  if (pgCode === '42P01') return 'the database is not migrated yet (run: cms migrate)'
  if (pgCode === 'ECONNREFUSED') return `cannot connect to the database: ${String(error.cause?.message ?? error.message)}`
  const message = String(error.cause?.message ?? error.message ?? e)
  return message.split('\n')[0]!
}
