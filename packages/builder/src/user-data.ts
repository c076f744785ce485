/**
 * builder/v1 user-data/current-user (builder-family.md §2.9): the signed-in
 * user's suppressed editor messages (user meta `builder_introduction`,
 * `{key: true}`) and capabilities (every capability and role name). PATCH
 * replaces the suppressed set with `suppressedMessages` (empty and
 * non-string entries dropped) and answers as GET. Any signed-in user.
 */
import { Type } from '@sinclair/typebox'
import { endpoint, invalidParam, Raw, route, unvalidated, type RelativeRouteDecl, type RestRequest } from '@cms/rest'
import { findUserById, type PackageApi } from '@cms/core'
import { signedIn } from './access.js'
import { USER_KEYS, type UserState } from './user-state.js'

const MAX_KEY = 200
const MAX_KEYS = 1000

const USER_DATA = Type.Object({ suppressedMessages: Type.Array(Type.String()), capabilities: Type.Array(Type.String(), { description: 'The user\'s roles and capabilities.' }) })

export function userDataRoutes (api: PackageApi, state: UserState): RelativeRouteDecl[] {
  async function answer (req: RestRequest, userId: number): Promise<Record<string, unknown>> {
    const stored = await state.get<Record<string, unknown>>(userId, USER_KEYS.introduction)
    const suppressed = typeof stored === 'object' && stored !== null ? Object.keys(stored).filter((k) => stored[k] === true) : []
    const user = await findUserById(api.services.store, userId)
    const caps = new Set<string>()
    // Without what a deactivated package granted (its capabilities follow its activation).
    const granted = api.services.roles.visible(await req.registry.off(req))
    for (const role of user?.roles ?? []) {
      for (const cap of granted.capabilitiesOf(role)) caps.add(cap)
      caps.add(role)
    }
    return { suppressedMessages: suppressed, capabilities: [...caps] }
  }
  return [route({
    path: '/user-data/current-user',
    endpoints: [
      endpoint({ methods: ['GET'], args: {}, summary: "The current user's editor data", response: USER_DATA, permission: signedIn, handler: async (req) => await answer(req, req.user.id) }),
      endpoint({
        methods: ['PATCH'],
        // Shown as the real route declares it (an array of strings), checked here: entries that are not
        // non-empty strings are dropped, as the real route drops them (builder-family.md §2.9).
        args: { suppressedMessages: unvalidated(Type.Optional(Raw<unknown[]>({ description: 'Keys of suppressed messages (entries that are not non-empty strings are dropped).', type: 'array', items: { type: 'string' }, maxItems: MAX_KEYS }))) },
        summary: "Replace the current user's suppressed messages",
        response: USER_DATA,
        permission: signedIn.probing({ body: { suppressedMessages: ['probe'] } }),
        handler: async (req) => {
          const sent: unknown = req.params.suppressedMessages ?? []
          if (!Array.isArray(sent)) throw invalidParam('suppressedMessages', 'suppressedMessages is not of type array.')
          if (sent.length > MAX_KEYS) throw invalidParam('suppressedMessages', `suppressedMessages must contain at most ${MAX_KEYS} items.`)
          const keys = sent.filter((k): k is string => typeof k === 'string' && k.trim() !== '')
          const long = keys.find((k) => k.length > MAX_KEY)
          if (long !== undefined) throw invalidParam('suppressedMessages', `Each key is at most ${MAX_KEY} characters.`)
          const value: Record<string, true> = {}
          for (const k of keys) Object.defineProperty(value, k, { value: true, enumerable: true, writable: true, configurable: true })
          await state.set(req.user.id, USER_KEYS.introduction, value)
          return await answer(req, req.user.id)
        }
      })
    ]
  })]
}
