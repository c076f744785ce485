/** The CLI's own command groups (a package's own are in package-commands.ts, loaded only when asked for). */
import type { CommandGroup } from './command.js'
import { migrateCommand } from './commands/migrate.js'
import { siteCommand } from './commands/site.js'
import { userCommand } from './commands/user.js'
import { appPasswordCommand } from './commands/app-password.js'
import { optionCommand } from './commands/option.js'
import { mediaCommand } from './commands/media.js'
import { pluginCommand, themeCommand } from './commands/package.js'
import { statusCommand } from './commands/status.js'
import { newCommand } from './commands/new.js'
import { seedCommand } from './commands/seed.js'
import { importCommand } from './commands/import.js'

export const builtinGroups: readonly CommandGroup[] = [migrateCommand, siteCommand, optionCommand, userCommand, appPasswordCommand, mediaCommand, pluginCommand, themeCommand, newCommand, statusCommand, seedCommand, importCommand]
