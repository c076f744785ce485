/** The command groups of `cms`. To add one: a file in src/commands/, one line here (a package's own: its `commands`). */
import type { CommandGroup } from './command.js'
import { migrateCommand } from './commands/migrate.js'
import { siteCommand } from './commands/site.js'
import { userCommand } from './commands/user.js'
import { appPasswordCommand } from './commands/app-password.js'
import { optionCommand } from './commands/option.js'
import { mediaCommand } from './commands/media.js'
import { pluginCommand, themeCommand } from './commands/package.js'
import { newCommand } from './commands/new.js'
import { packageCommandGroups } from './package-commands.js'

export const commandGroups: readonly CommandGroup[] = [migrateCommand, siteCommand, optionCommand, userCommand, appPasswordCommand, mediaCommand, pluginCommand, themeCommand, newCommand, ...packageCommandGroups]
