/**
 * Commands packages add (`commands` in their `definePackage`): each one a
 * command group of `cms`, given the installed packages' services on the
 * configured store when it asks for them.
 */
import { CommandUsageError, type PackageCommand } from '@cms/core'
import { installedPackages } from '@cms/gateway/packages'
import { UsageError, withStore, type CommandGroup } from './command.js'
import { withPackages } from './packages.js'

function groupOf (command: PackageCommand): CommandGroup {
  return {
    name: command.name,
    summary: command.summary,
    usage: command.usage,
    ...(command.writes === undefined ? {} : { writes: command.writes }),
    async run (args, ctx) {
      let shown = false
      try {
        return await command.run(args, {
          env: ctx.env,
          out: (text) => {
            if (shown) process.stderr.write('\n')
            shown = false
            ctx.out(text)
          },
          progress: (text) => {
            if (process.stderr.isTTY !== true) return
            process.stderr.write(`\r${text}\u001b[K`)
            shown = true
          },
          withServices: async (fn) => await withStore(ctx, async (store) => await withPackages(store, async (_platform, services) => await fn(services)))
        })
      } catch (err) {
        if (err instanceof CommandUsageError) throw new UsageError(err.message, command.name)
        throw err
      } finally {
        if (shown) process.stderr.write('\n')
      }
    }
  }
}

/** The installed packages' commands. */
export const packageCommandGroups: readonly CommandGroup[] = installedPackages.flatMap((p) => p.commands.map(groupOf))
