export { run, usage } from './cli.js'
export { commandGroups } from './registry.js'
export { defaultContext, argvForParse, parseOrUsage, UsageError, withStore } from './command.js'
export type { CliContext, CommandGroup } from './command.js'
