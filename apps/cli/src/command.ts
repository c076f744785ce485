/**
 * What a command group is, and the context it runs in. A group is one file
 * in src/commands/ and one line in the registry (src/registry.ts).
 */
import { openStore, sharedDatabaseAnswers, sharedDatabaseUrl, storeSettingsFromEnv } from '@cms/store'
import type { Store } from '@cms/store'

export interface CliContext {
  env: NodeJS.ProcessEnv;
  /** Writes a line (or lines) to standard output. */
  out(text: string): void;
  /** Opens the store configured by the environment (DATABASE_URL / CMS_DATA_DIR). */
  openStore(): Promise<Store>;
  /** Where a progress bar goes (default standard error; drawn only when it is a terminal). */
  terminal?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Aborted to interrupt a long command (default: on SIGINT or SIGTERM, for the commands that listen). */
  signal?: AbortSignal;
}

export interface CommandGroup {
  /** The first word: `cms <name> ...`. */
  name: string;
  /** One line for the overall usage text. */
  summary: string;
  /** Full usage text of the group (shown by `cms <name> --help`). */
  usage: string;
  /** Runs with the arguments after the group name; returns the exit code (default 0). */
  run(args: string[], ctx: CliContext): Promise<number | void>;
  /**
   * The subcommands that write (`['create', 'delete']`; `'*'`: every call):
   * each such call leaves an entry in the audit log (audit.ts).
   */
  writes?: readonly string[];
}

/** Bad command line: printed as one line, exit code 2. */
export class UsageError extends Error {
  constructor (
    message: string,
    /** The group whose usage applies (for the hint). */
    readonly group?: string
  ) {
    super(message)
    this.name = 'UsageError'
  }
}

/**
 * Prepares arguments for util.parseArgs: a bare negative number
 * (`cms site set gmt_offset -5`) is taken as a value, not as an option.
 */
export function argvForParse (args: string[]): string[] {
  const dashdash = args.indexOf('--')
  const negative = args.findIndex((a, i) => /^-\d+(\.\d+)?$/.test(a) && (dashdash === -1 || i < dashdash))
  if (negative === -1) return args
  return [...args.slice(0, negative), '--', ...args.slice(negative).filter((a) => a !== '--')]
}

/** Runs a util.parseArgs call, turning its errors into a one-line UsageError. */
export function parseOrUsage<T> (group: string, parse: () => T): T {
  try {
    return parse()
  } catch (err) {
    const message = (err as Error).message
    const unknown = /^Unknown option '([^']+)'/.exec(message)
    throw new UsageError(unknown ? `unknown option "${unknown[1]}"` : message.split('\n')[0]!, group)
  }
}

export function defaultContext (env: NodeJS.ProcessEnv = process.env): CliContext {
  return {
    env,
    out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    openStore: () => openCliStore(env),
  }
}

/**
 * The store the environment names. On the embedded database while the
 * service runs (it holds PGlite, a single-process database), the service's
 * socket in the data directory: the same database, reached as PostgreSQL.
 */
export async function openCliStore (env: NodeJS.ProcessEnv = process.env): Promise<Store> {
  const settings = storeSettingsFromEnv(env)
  if (settings.databaseUrl === undefined && await sharedDatabaseAnswers(settings.dataDir)) {
    // Two connections: a command's transaction and a query beside it (PGlite runs one at a time anyway).
    return await openStore({ databaseUrl: sharedDatabaseUrl(settings.dataDir), poolSize: 2 })
  }
  return await openStore(settings)
}

/** Opens the store, runs `fn`, closes the store. */
export async function withStore<T> (ctx: CliContext, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await ctx.openStore()
  try {
    return await fn(store)
  } finally {
    await store.close()
  }
}
