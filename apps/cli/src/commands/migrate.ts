import { migrate } from '@cms/store'
import { parseArgs } from 'node:util'
import { argvForParse, parseOrUsage, UsageError, withStore } from '../command.js'
import type { CommandGroup } from '../command.js'
import { withPackages } from '../packages.js'
import { importMigrations } from '../import/map.js'

export const migrateCommand: CommandGroup = {
  name: 'migrate',
  summary: 'apply pending database migrations',
  writes: ['*'],
  usage: `Usage: cms migrate

Applies the pending database migrations of every installed package, each
after the packages it depends on (safe to run repeatedly, and from several
processes at once on PostgreSQL).

Database: DATABASE_URL (PostgreSQL), else the embedded database in
CMS_DATA_DIR (default .data, relative to the directory pnpm was run from).`,
  async run (args, ctx) {
    const { values, positionals } = parseOrUsage('migrate', () =>
      parseArgs({ args: argvForParse(args), options: { help: { type: 'boolean', short: 'h' } }, allowPositionals: true })
    )
    if (values.help) {
      ctx.out(this.usage)
      return 0
    }
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`, 'migrate')
    await withStore(ctx, async (store) => {
      await withPackages(store, async (platform) => { await migrate(store, [...platform.migrationSets(), importMigrations]) })
      ctx.out(`Database migrated (${store.kind === 'pg' ? 'PostgreSQL' : 'embedded PGlite'}).`)
    })
  },
}
