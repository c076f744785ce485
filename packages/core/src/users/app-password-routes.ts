/**
 * `cms/v2/users/{user_id}/application-passwords` (+ `/introspect`, `/{uuid}`):
 * declarations, permission checks (`edit_user` on the owner, through the
 * app-password meta capabilities), response shaping and the item schema.
 * `{user_id}` is digits or `me`.
 */
import { argsFromSchema, check, contextParam, created, endpoint, field, itemSchema, restUrl, route, who, type Permission, type Probe, type RelativeRouteDecl, type RestError, type RestRequest } from '@cms/rest'
import type { UserServices as Services } from './services.js'
import { appPasswordErrors, denied, userErrors } from './errors.js'
import { chunkPassword } from './passwords.js'
import {
  createApplicationPassword, getApplicationPassword, listApplicationPasswords, revokeAllApplicationPasswords,
  revokeApplicationPassword, updateApplicationPassword, type AppPasswordRecord, type UserRecord
} from './store.js'
import { appPasswordOf, userOnce, userTextFilter, utcDate } from './route-helpers.js'

const NS = 'cms/v2'
const BASE = '/users/{user_id}/application-passwords'
const USER_ID = '(?:[\\d]+|me)'

export const applicationPasswordSchema = itemSchema('application-password', {
  uuid: field({ description: 'The unique identifier for the application password.', type: 'string', format: 'uuid', context: ['view', 'edit', 'embed'], readonly: true }),
  app_id: field({
    description: 'A UUID provided by the application to uniquely identify it. It is recommended to use an UUID v5 with the URL or DNS namespace.',
    oneOf: [{ type: 'string', format: 'uuid' }, { type: 'string', enum: [''] }],
    context: ['view', 'edit', 'embed']
  }),
  name: field({ description: 'The name of the application password.', type: 'string', required: true, context: ['view', 'edit', 'embed'], minLength: 1, pattern: '.*\\S.*' }),
  password: field({ description: 'The generated password. Only available after adding an application.', type: 'string', context: ['edit'], readonly: true }),
  created: field({ description: 'The GMT date the application password was created.', type: 'string', format: 'date-time', context: ['view', 'edit'], readonly: true }),
  last_used: field({ description: 'The GMT date the application password was last used.', type: ['string', 'null'], format: 'date-time', context: ['view', 'edit'], readonly: true }),
  last_ip: field({ description: 'The IP address the application password was last used by.', type: ['string', 'null'], format: 'ip', context: ['view', 'edit'], readonly: true })
})

const contextArgs = { context: contextParam(applicationPasswordSchema) }
const createArgs = argsFromSchema(applicationPasswordSchema, 'create')
const updateArgs = argsFromSchema(applicationPasswordSchema, 'update')

type Cap = 'list_app_passwords' | 'create_app_password' | 'delete_app_passwords' | 'read_app_password' | 'edit_app_password' | 'delete_app_password'

const refusals: Record<Cap, () => RestError> = {
  list_app_passwords: () => appPasswordErrors.rest_cannot_list_application_passwords(),
  create_app_password: () => appPasswordErrors.rest_cannot_create_application_passwords(),
  delete_app_passwords: () => appPasswordErrors.rest_cannot_delete_application_passwords(),
  read_app_password: () => appPasswordErrors.rest_cannot_read_application_password(),
  edit_app_password: () => appPasswordErrors.rest_cannot_edit_application_password(),
  delete_app_password: () => appPasswordErrors.rest_cannot_delete_application_password()
}

export function applicationPasswordRoutesOf (services: Services): RelativeRouteDecl[] {
  const { store } = services

  /** The user named by `{user_id}`: `me` needs a signed-in caller. */
  async function ownerOf (req: RestRequest): Promise<UserRecord | RestError> {
    const raw = String(req.params.user_id)
    if (raw.toLowerCase() === 'me') {
      if (req.user.id === 0) return userErrors.rest_not_logged_in()
      return await userOnce(store, req, req.user.id) ?? userErrors.rest_user_invalid_id()
    }
    const id = Number(raw)
    if (!Number.isSafeInteger(id) || id <= 0) return userErrors.rest_user_invalid_id()
    return await userOnce(store, req, id) ?? userErrors.rest_user_invalid_id()
  }

  async function owner (req: RestRequest): Promise<UserRecord> {
    const user = await ownerOf(req)
    if (!('login' in user)) throw user
    return user
  }

  /**
   * §12: every signed-in user manages their own passwords (`me`); another
   * user's need edit_users. An item route's probe names a password of the
   * caller's own or of the other user.
   */
  const allowed = (cap: Cap, why: string, probe: Probe = {}, item = false): Permission => check(async (req) => {
    const user = await ownerOf(req)
    if (!('login' in user)) return user
    return req.user.can(cap, { id: user.id }) ? true : denied(refusals[cap](), req.user.id)
  },
  who.signedIn(`§12 ${why}: every signed-in user manages their own`, { ...probe, vars: { user_id: 'me', ...(item ? { uuid: 'self.app-password' } : {}) } }),
  who.can('edit_users', `§12 ${why}: another user's need edit_users`, { ...probe, vars: { user_id: 'user', ...(item ? { uuid: 'user.app-password' } : {}) } }))

  function present (req: RestRequest, user: UserRecord, item: AppPasswordRecord, password?: string): Record<string, unknown> {
    const out: Record<string, unknown> = {
      uuid: item.uuid,
      app_id: item.appId,
      name: item.name,
      created: utcDate(item.created),
      last_used: item.lastUsed === null ? null : utcDate(item.lastUsed),
      last_ip: item.lastIp === null || item.lastIp === '' ? null : item.lastIp
    }
    if (password !== undefined) out.password = chunkPassword(password)
    out._links = { self: [{ href: selfUrl(req, user, item) }] }
    return out
  }

  const selfUrl = (req: RestRequest, user: UserRecord, item: AppPasswordRecord): string =>
    restUrl(req.baseUrl, `/${NS}/users/${user.id}/application-passwords/${item.uuid}`)

  async function itemOf (req: RestRequest, user: UserRecord): Promise<AppPasswordRecord> {
    const item = await getApplicationPassword(store, user.id, String(req.params.uuid))
    if (item === undefined) throw appPasswordErrors.rest_application_password_not_found()
    return item
  }

  const collection = route({
    path: BASE,
    vars: { user_id: USER_ID },
    schema: applicationPasswordSchema,
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: contextArgs,
        summary: 'List a user\'s application passwords (never the passwords themselves)',
        permission: allowed('list_app_passwords', 'list'),
        handler: async (req) => {
          const user = await owner(req)
          return (await listApplicationPasswords(store, user.id)).map((item) => present(req, user, item))
        }
      }),
      endpoint({
        methods: ['POST'],
        args: createArgs,
        summary: 'Create an application password; the response shows it once',
        responseContext: 'edit',
        permission: allowed('create_app_password', 'create', { body: { name: 'Probe' } }),
        handler: async (req) => {
          const user = await owner(req)
          const { item, password } = await createApplicationPassword(store, user.id, {
            name: await userTextFilter(req.user)(req.params.name),
            appId: req.params.app_id ?? ''
          })
          return created(present(req, user, item, password), selfUrl(req, user, item))
        }
      }),
      endpoint({
        methods: ['DELETE'],
        summary: 'Revoke every application password of a user',
        permission: allowed('delete_app_passwords', 'delete all'),
        handler: async (req) => {
          const user = await owner(req)
          return { deleted: true, count: await revokeAllApplicationPasswords(store, user.id) }
        }
      })
    ]
  })

  const introspect = route({
    path: `${BASE}/introspect`,
    vars: { user_id: USER_ID },
    schema: applicationPasswordSchema,
    endpoints: [endpoint({
      methods: ['GET'],
      args: contextArgs,
      summary: 'The application password this request authenticated with',
      permission: check(async (req) => {
        const user = await ownerOf(req)
        if (!('login' in user)) return user
        if (req.user.id !== user.id) {
          return denied(appPasswordErrors.rest_cannot_introspect_app_password_for_non_authenticated_user(), req.user.id)
        }
        return true
      },
      who.signedIn('§12 introspect the password of this request: every signed-in user manages their own', { vars: { user_id: 'me' } }),
      who.nobody("§12 introspecting another user's password is refused to everyone", { vars: { user_id: 'user' } })),
      handler: async (req) => {
        const user = await owner(req)
        const uuid = appPasswordOf(req)
        if (uuid === undefined) throw appPasswordErrors.rest_no_authenticated_app_password()
        const item = await getApplicationPassword(store, user.id, uuid)
        if (item === undefined) throw appPasswordErrors.rest_application_password_not_found()
        return present(req, user, item)
      }
    })]
  })

  const item = route({
    path: `${BASE}/{uuid}`,
    vars: { user_id: USER_ID, uuid: '[\\w\\-]+' },
    schema: applicationPasswordSchema,
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: contextArgs,
        summary: 'Read an application password (without the password)',
        permission: allowed('read_app_password', 'read', {}, true),
        handler: async (req) => {
          const user = await owner(req)
          return present(req, user, await itemOf(req, user))
        }
      }),
      endpoint({
        methods: ['POST', 'PUT', 'PATCH'],
        args: updateArgs,
        summary: 'Rename an application password',
        responseContext: 'edit',
        permission: allowed('edit_app_password', 'rename', { body: { name: 'Renamed' } }, true),
        handler: async (req) => {
          const user = await owner(req)
          await itemOf(req, user)
          const name = req.params.name === undefined ? undefined : await userTextFilter(req.user)(req.params.name)
          const updated = await updateApplicationPassword(store, user.id, String(req.params.uuid), { name })
          if (updated === undefined) throw appPasswordErrors.rest_application_password_not_found()
          return present(req, user, updated)
        }
      }),
      endpoint({
        methods: ['DELETE'],
        summary: 'Revoke an application password',
        permission: allowed('delete_app_password', 'delete', {}, true),
        handler: async (req) => {
          const user = await owner(req)
          const existing = await itemOf(req, user)
          const { _links, ...previous } = present(req, user, existing)
          const gone = await revokeApplicationPassword(store, user.id, existing.uuid)
          if (gone === undefined) throw appPasswordErrors.rest_application_password_not_found()
          return { deleted: true, previous }
        }
      })
    ]
  })

  return [collection, introspect, item]
}
