/**
 * The first administrator, made at start from CMS_ADMIN_* when no user
 * exists (as Directus and Strapi do), so a new installation needs no stop,
 * CLI run and restart. Once any user exists it does nothing, so the settings
 * may stay in place across restarts.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { FastifyBaseLogger } from 'fastify'
import type { Store } from '@cms/store'
import { createApplicationPassword, createUser, hasAnyUser } from '@cms/core'
import type { FirstAdmin } from './settings.js'

export async function ensureFirstAdmin (store: Store, admin: FirstAdmin, log: FastifyBaseLogger): Promise<void> {
  if (await hasAnyUser(store)) {
    log.debug('users exist: CMS_ADMIN_LOGIN and the other CMS_ADMIN_* settings are not used')
    return
  }
  // Its directory first (`.data/` does not exist yet on PostgreSQL): a failure here leaves no
  // administrator behind whose password was never written.
  if (admin.appPasswordFile !== undefined) mkdirSync(dirname(admin.appPasswordFile), { recursive: true, mode: 0o700 })
  let user
  try {
    user = await createUser(store, { login: admin.login, email: admin.email, roles: ['administrator'], password: admin.password })
  } catch (err) {
    // Another replica starting at the same time made it first.
    if (await hasAnyUser(store)) return
    throw new Error(`the first administrator from CMS_ADMIN_LOGIN could not be created: ${(err as Error).message}`)
  }
  log.info(`first administrator "${user.login}" (user ${user.id}) created from CMS_ADMIN_LOGIN`)
  if (admin.appPasswordFile !== undefined) {
    const { password } = await createApplicationPassword(store, user.id, { name: 'first application password (CMS_ADMIN_APP_PASSWORD_FILE)' })
    // Created with mode 600; `wx` refuses to replace a file that is already there.
    writeFileSync(admin.appPasswordFile, `${password}\n`, { mode: 0o600, flag: 'wx' })
    log.info(`an application password for "${user.login}" was written to ${admin.appPasswordFile} (mode 600)`)
  }
}
