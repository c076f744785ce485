/**
 * The CLI's own command groups (a package's own are in package-commands.ts,
 * loaded only when asked for). Each group's module is imported only when a
 * command line names it: `cms user list` loads the user commands and what
 * they use, not the importer, the scaffolder or every package (importing
 * them all was most of a call's CPU).
 */
import type { CommandGroup } from './command.js'

/** Group name -> its module, in the order the usage lists them. */
const loaders: ReadonlyArray<readonly [string, () => Promise<CommandGroup>]> = [
  ['migrate', async () => (await import('./commands/migrate.js')).migrateCommand],
  ['site', async () => (await import('./commands/site.js')).siteCommand],
  ['option', async () => (await import('./commands/option.js')).optionCommand],
  ['user', async () => (await import('./commands/user.js')).userCommand],
  ['app-password', async () => (await import('./commands/app-password.js')).appPasswordCommand],
  ['media', async () => (await import('./commands/media.js')).mediaCommand],
  ['plugin', async () => (await import('./commands/package.js')).pluginCommand],
  ['theme', async () => (await import('./commands/package.js')).themeCommand],
  ['new', async () => (await import('./commands/new.js')).newCommand],
  ['status', async () => (await import('./commands/status.js')).statusCommand],
  ['seed', async () => (await import('./commands/seed.js')).seedCommand],
  ['import', async () => (await import('./commands/import.js')).importCommand]
]

/** The group named `name`, loaded; undefined when no built-in group has that name. */
export async function builtinGroup (name: string): Promise<CommandGroup | undefined> {
  return await loaders.find(([n]) => n === name)?.[1]()
}

/** Every built-in group, loaded (the usage text, help). */
export async function builtinGroups (): Promise<CommandGroup[]> {
  return await Promise.all(loaders.map(async ([, load]) => await load()))
}
