/**
 * Test users (`createCaller`, re-exported by `@cms/core/testing`): a user
 * of a role with an application password, presented with HTTP Basic.
 */
import { basic, type TestCaller } from '@cms/rest/testing'
import type { Store } from '@cms/store'
import type { Role } from '../users/capabilities.js'
import { createApplicationPassword, createUser, type UserRecord } from '../users/store.js'

export interface TestUser extends TestCaller<Role> {
  user: UserRecord
  /** The application password, and its uuid. */
  password: string
  uuid: string
}

export interface TestUserOptions {
  /** Default: unique (`<role>-<pid>-<n>-<random>`). */
  login?: string
  /** An account password too (default: none, as for a user made by the CLI without one). */
  password?: string
  displayName?: string
}

let serial = 0

/** A new user of `role` with one application password, presented with HTTP Basic. */
export async function createCaller (store: Store, role: Role, opts: TestUserOptions = {}): Promise<TestUser> {
  serial += 1
  const login = opts.login ?? `${role}-${process.pid}-${serial}-${Math.random().toString(36).slice(2, 8)}`
  const user = await createUser(store, { login, email: `${login}@example.com`, roles: [role], password: opts.password, displayName: opts.displayName })
  const { uuid, password } = await createApplicationPassword(store, user.id, { name: 'tests' })
  return { role, id: user.id, login, headers: { authorization: basic(login, password) }, user, password, uuid }
}
