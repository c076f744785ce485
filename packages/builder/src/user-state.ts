/**
 * The per-user state the builder keeps in the core's user meta (private
 * keys, not shown on cms/v2 users): favorites, suppressed messages, the
 * checklist progress and the library connection. Each value is read and
 * written whole; `update` does both under a lock, so two requests changing
 * one user's value at once both count.
 */
import { sql } from 'drizzle-orm'
import { deleteUserMeta, getUserMeta, setUserMeta, type PackageApi } from '@cms/core'

export const USER_KEYS = {
  favorites: 'builder_editor_user_favorites',
  introduction: 'builder_introduction',
  checklist: 'builder_checklist',
  library: 'builder_connect_library'
} as const

export interface UserState {
  get: <T>(userId: number, key: string) => Promise<T | undefined>
  set: (userId: number, key: string, value: unknown) => Promise<void>
  remove: (userId: number, key: string) => Promise<void>
  /** Reads the value, changes it with `change` and writes the result, one caller at a time per user and key. */
  update: <T>(userId: number, key: string, change: (current: T | undefined) => T) => Promise<T>
}

export function userState (api: PackageApi): UserState {
  const { store } = api.services
  return {
    async get (userId, key) { return await getUserMeta(store, userId, key) },
    async set (userId, key, value) { await setUserMeta(store, userId, key, value) },
    async remove (userId, key) { await deleteUserMeta(store, userId, key) },
    async update (userId, key, change) {
      return await store.transaction(async (tx) => {
        // A row lock would miss the first write of a key: the lock is on (key, user) instead.
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${key}), ${userId})`)
        const next = change(await getUserMeta(tx, userId, key))
        await setUserMeta(tx, userId, key, next)
        return next
      })
    }
  }
}
