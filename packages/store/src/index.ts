export { openStore, onCommit, dbOf, executeNamed, prepareNamed, executeShaped, prepareShaped, storeSlot, StoreLockedError } from './db.js'
export { inOneTransaction, afterJoinedCommit, JoinedCommitError } from './joined.js'
export type { JoinedOutcome, JoinedRun } from './joined.js'
export type { CommitHook, Db, Tx, Queryable, Store, StoreKind, StoreSlot, OpenStoreOptions, Snapshot } from './db.js'
export { migrate, migrationsFolder, migrationOrder, migrationsTableOf, storeMigrations, MIGRATION_LOCK_KEY } from './migrate.js'
export type { MigrationSet } from './migrate.js'
export {
  getOption,
  getOptions,
  setOption,
  resetOption,
  validateOption,
  registerOption,
  optionSpec,
  optionDefaults,
  knownOptions,
  isValidTimezone,
  OptionError,
} from './options.js'
export type { OptionName, OptionValues, OptionValue, OptionType, OptionSpec, OptionErrorCode } from './options.js'
export { storeSettingsFromEnv, loadEnvFile, baseDirOf, redactUrl, SettingError } from './settings.js'
export { isStoreUnavailable, storeErrorLine } from './errors.js'
export type { StoreSettings } from './settings.js'
export { defaultTemplatesDir } from './template.js'
export { makePgliteTemplate } from './template-make.js'
export * as schema from './schema.js'
export { shareStore, sharedSocketPath, sharedDatabaseUrl, sharedDatabaseAnswers, SHARED_SOCKET } from './share.js'
export type { SharedDatabase } from './share.js'
