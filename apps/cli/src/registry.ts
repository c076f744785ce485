/** The command groups of `cms`. To add one: a file in src/commands/, one line in builtin.ts (a package's own: its `commands`). */
import type { CommandGroup } from './command.js'
import { builtinGroups } from './builtin.js'
import { packageCommandGroups } from './package-commands.js'

export async function commandGroups (): Promise<readonly CommandGroup[]> {
  return [...await builtinGroups(), ...packageCommandGroups]
}
