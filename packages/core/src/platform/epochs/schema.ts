/**
 * Epochs (core migration 0013): values that triggers renew in the
 * transaction of a change, one per kind of change (the id of the last
 * transaction that made one: never a value seen before). The store reads them all
 * in the statement of its commit horizon (`store.snapshot()`), so a value
 * kept while its epoch stays is still valid, whatever else was committed
 * meanwhile. `credentials`: users' logins, e-mail addresses and roles and
 * the application passwords (authenticate.ts keeps credential rows by it).
 */
import { bigint, pgTable, text } from 'drizzle-orm/pg-core'

export const cmsEpochs = pgTable('cms_epochs', {
  name: text('name').primaryKey(),
  value: bigint('value', { mode: 'number' }).notNull().default(0)
})
