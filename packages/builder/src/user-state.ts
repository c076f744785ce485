/**
 * The per-user state the builder keeps in the core's user meta (private
 * keys, not shown on cms/v2 users): favorites, suppressed messages, the
 * checklist progress and the library connection, kept with the core's
 * `userState` (each value read and written whole; `update` under a lock).
 */

export const USER_KEYS = {
  favorites: 'builder_editor_user_favorites',
  introduction: 'builder_introduction',
  checklist: 'builder_checklist',
  library: 'builder_connect_library'
} as const

export { userState, type UserState } from '@cms/core'
