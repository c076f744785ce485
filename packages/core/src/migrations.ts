/**
 * The core package's migrations (users, content, oEmbed cache, the
 * post-insert function, the default category): its own folder and its own
 * migrations table, run after the store's.
 */
import { fileURLToPath } from 'node:url'
import type { MigrationSet } from '@cms/store'

export const coreMigrations: MigrationSet = {
  name: '@cms/core',
  folder: fileURLToPath(new URL('../migrations', import.meta.url))
}
