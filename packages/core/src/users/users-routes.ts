/**
 * `cms/v2/users`, `users/{id}` and `users/me`: their declarations, permission
 * checks, how a user becomes a response, and the item schema.
 */
import { createHash } from 'node:crypto'
import { Type } from '@sinclair/typebox'
import { argsFromSchema, secret, can, check, collectionParams, contextParam, endpoint, handlerChecked, Enum, field, itemSchema, Raw, RestResponse, restUrl, route, StringList, unvalidated, who, type RelativeRouteDecl, type RestError, type RestRequest, pageHeaders, createdAt } from '@cms/rest'
import type { UserServices as Services } from './services.js'
import type { FieldRegistry } from '../platform/fields.js'
import { cachedSiteOptions } from '../base/site-options.js'
import { isRole, ROLES, type Role, type RoleRegistry } from './capabilities.js'
import { denied, userErrors } from './errors.js'
import { AUTHOR_POST_TYPES, countPublishedPosts } from './authors.js'
import {
  checkAccountPassword, createUser, deleteUser, findUserById, getUserMetas, listUsers, PROFILE_FIELDS,
  updateUser, type ProfileField, type UserChanges, type UserOrderBy, type UserRecord
} from './store.js'
import { forgetUser, invalidParamOf, userOnce, userTextFilter, utcDate } from './route-helpers.js'
import { metaResponse, metaSchema, parseMetaParam, type MetaRegistry } from '../platform/meta.js'

const NS = 'cms/v2'
const CONTEXTS = ['embed', 'view', 'edit']
const AVATAR_SIZES = [24, 48, 96] as const

const userFields = {
  id: field({ description: 'Unique identifier for the user.', type: 'integer', context: CONTEXTS, readonly: true }),
  username: field({ description: 'Login name for the user.', type: 'string', context: ['edit'], required: true }),
  name: field({ description: 'Display name for the user.', type: 'string', context: CONTEXTS }),
  first_name: field({ description: 'First name for the user.', type: 'string', context: ['edit'] }),
  last_name: field({ description: 'Last name for the user.', type: 'string', context: ['edit'] }),
  email: field({ description: 'The email address for the user.', type: 'string', format: 'email', context: ['edit'], required: true }),
  url: field({ description: 'URL of the user.', type: 'string', format: 'uri', context: CONTEXTS }),
  description: field({ description: 'Description of the user.', type: 'string', context: CONTEXTS }),
  link: field({ description: 'Author URL of the user.', type: 'string', format: 'uri', context: CONTEXTS, readonly: true }),
  locale: field({ description: 'Locale for the user.', type: 'string', enum: ['', 'en_US'], context: ['edit'] }),
  nickname: field({ description: 'The nickname for the user.', type: 'string', context: ['edit'] }),
  slug: field({ description: 'An alphanumeric identifier for the user.', type: 'string', context: CONTEXTS }),
  registered_date: field({ description: 'Registration date for the user.', type: 'string', format: 'date-time', context: ['edit'], readonly: true }),
  roles: field({ description: 'Roles assigned to the user.', type: 'array', items: { type: 'string' }, context: ['edit'] }),
  // Secret: the audit log keeps its name only.
  password: secret(field({ description: 'Password for the user (never included).', type: 'string', context: [], required: true })),
  capabilities: field({ description: 'All capabilities assigned to the user.', type: 'object', context: ['edit'], readonly: true }),
  extra_capabilities: field({ description: 'Any extra capabilities assigned to the user.', type: 'object', context: ['edit'], readonly: true }),
  avatar_urls: field({
    description: 'Avatar URLs for the user.',
    type: 'object',
    context: CONTEXTS,
    readonly: true,
    properties: Object.fromEntries(AVATAR_SIZES.map((size) => [String(size), {
      description: `Avatar URL with image size of ${size} pixels.`, type: 'string', format: 'uri', context: CONTEXTS
    }]))
  })
}

/** The item schema without user meta (what cms/v2 users answer while no package registers any). */
export const userSchema = itemSchema('user', userFields)

/**
 * The item schema of the composed app: `meta` (the registered user meta,
 * each key with its contexts) once a package registered a key, so the
 * index, OpenAPI and the write arguments show it as posts show theirs.
 * Typed with `meta` either way; without keys the property is left out.
 */
export function userItemSchema (meta: MetaRegistry, registered?: FieldRegistry) {
  const fields = {
    ...userFields,
    meta: unvalidated(field({ description: 'Meta fields.', type: 'object', context: ['view', 'edit'], properties: metaSchema(meta) }))
  }
  if (meta.size === 0) delete (fields as Partial<typeof fields>).meta
  // Fields packages registered on users (fields.ts), after the core's.
  if (registered?.has('user') === true) Object.assign(fields, registered.schemaProperties('user', fields))
  return itemSchema('user', fields)
}

const idArg = { id: Type.Optional(Type.Integer({ description: 'Unique identifier for the user.' })) }

const deleteArgs = {
  force: Type.Boolean({ default: false, description: 'Required to be true, as users do not support trashing.' }),
  reassign: Raw<number | boolean>({ type: ['integer', 'boolean'], description: 'Reassign the deleted user\'s posts and links to this user ID.' })
}

const ORDERBY = ['id', 'include', 'name', 'registered_date', 'slug', 'include_slugs', 'email', 'url'] as const

const collectionArgs = {
  ...collectionParams({
    schema: userSchema,
    order: 'asc',
    ids: true,
    orderby: { enum: ORDERBY, default: 'name', description: 'Sort collection by user attribute.' }
  }),
  slug: Type.Optional(StringList({ description: 'Limit result set to users with one or more specific slugs.' })),
  roles: Type.Optional(StringList({ description: 'Limit result set to users matching at least one specific role provided. Accepts csv list or single role.' })),
  capabilities: Type.Optional(StringList({ description: 'Limit result set to users matching at least one specific capability provided. Accepts csv list or single capability.' })),
  who: Type.Optional(Enum(['authors'], { description: 'Limit result set to users who are considered authors.' })),
  has_published_posts: Type.Optional(Raw<boolean | string[]>({
    description: 'Limit result set to users who have published posts.',
    type: ['boolean', 'array'],
    items: { type: 'string', enum: [...AUTHOR_POST_TYPES] }
  }))
}

export function avatarUrls (email: string): Record<string, string> {
  const hash = createHash('sha256').update(email.trim().toLowerCase()).digest('hex')
  return Object.fromEntries(AVATAR_SIZES.map((s) => [String(s), `https://secure.gravatar.com/avatar/${hash}?s=${s}&d=mm&r=g`]))
}

function allCapabilities (registry: RoleRegistry, roles: readonly Role[]): Record<string, boolean> {
  const out: Record<string, boolean> = {}
  for (const role of roles) for (const cap of registry.capabilitiesOf(role)) out[cap] = true
  for (const role of roles) out[role] = true
  return out
}

export function userRoutesOf (services: Services): RelativeRouteDecl[] {
  const { store, userMeta } = services
  const siteOptions = cachedSiteOptions(store)
  const schema = userItemSchema(userMeta, services.fields)
  // `id` is no create argument; the core still refuses a create that names one (rest_user_exists).
  const createArgs = { ...argsFromSchema(schema, 'create'), id: handlerChecked('Refused: a create names no existing user.') }
  const updateArgs = argsFromSchema(schema, 'update')
  const metaKeys = [...userMeta.entries()].map(([key]) => key)

  /** Users as the API shows them, with the fields packages registered (fields.ts; a list computes each once for the page). */
  async function presentAll (req: RestRequest, users: readonly UserRecord[], opts: { edit: boolean, links?: boolean }): Promise<Array<Record<string, unknown>>> {
    const bodies = await Promise.all(users.map(async (u) => await presentOne(req, u, opts)))
    if (services.fields.has('user')) await services.fields.visible(await req.registry.off(req)).render('user', bodies, req, opts.edit ? 'edit' : typeof req.params.context === 'string' ? req.params.context : 'view')
    return bodies
  }

  async function present (req: RestRequest, user: UserRecord, opts: { edit: boolean, links?: boolean }): Promise<Record<string, unknown>> {
    return (await presentAll(req, [user], opts))[0]!
  }

  /** A user as the API shows it; the kernel then keeps the fields of the request's context. */
  async function presentOne (req: RestRequest, user: UserRecord, opts: { edit: boolean, links?: boolean }): Promise<Record<string, unknown>> {
    const home = (await siteOptions()).home
    const profile = opts.edit ? await getUserMetas(store, user.id, PROFILE_FIELDS) : {}
    const text = (key: ProfileField): string => typeof profile[key] === 'string' ? profile[key] : ''
    const out: Record<string, unknown> = { id: user.id }
    if (opts.edit) out.username = user.login
    out.name = user.displayName
    if (opts.edit) Object.assign(out, { first_name: text('first_name'), last_name: text('last_name'), email: user.email })
    out.url = user.url
    out.description = user.description
    out.link = `${home === '' ? req.baseUrl : String(home)}/?author=${user.id}`
    if (opts.edit) Object.assign(out, { locale: text('locale') === '' ? 'en_US' : text('locale'), nickname: text('nickname') })
    out.slug = user.nicename
    if (opts.edit) {
      Object.assign(out, {
        roles: [...user.roles],
        registered_date: utcDate(user.registered),
        capabilities: allCapabilities(services.roles.visible(await req.registry.off(req)), user.roles),
        extra_capabilities: Object.fromEntries(user.roles.map((r) => [r, true]))
      })
    }
    out.avatar_urls = avatarUrls(user.email)
    // Every registered key; the kernel keeps those of the answer's context (none in embed; writes answer in edit).
    if (metaKeys.length > 0 && (opts.edit || req.params.context !== 'embed')) out.meta = metaResponse(userMeta.visible(await req.registry.off(req)), await getUserMetas(store, user.id, metaKeys))
    if (opts.links !== false) {
      out._links = {
        self: [{ href: restUrl(req.baseUrl, `/${NS}/users/${user.id}`) }],
        collection: [{ href: restUrl(req.baseUrl, `/${NS}/users`) }]
      }
    }
    return out
  }

  const wantsEdit = (req: RestRequest): boolean => req.params.context === 'edit'
  const deny = (req: RestRequest, error: RestError): RestError => denied(error, req.user.id)

  async function targetOf (req: RestRequest, id: number): Promise<UserRecord | RestError> {
    const user = await userOnce(store, req, id)
    return user ?? userErrors.rest_user_invalid_id()
  }

  /** The core's rule for changing roles: roles must exist, and nobody drops their own `edit_users`. */
  function checkRoleUpdate (req: RestRequest, targetId: number | undefined, roles: readonly string[]): void {
    for (const role of roles) {
      if (!isRole(role)) throw userErrors.rest_user_invalid_role(undefined, `The role ${role} does not exist.`)
      if (targetId === req.user.id && !services.roles.capabilitiesOf(role).has('edit_users')) {
        throw deny(req, userErrors.rest_user_invalid_role(undefined, 'Sorry, you are not allowed to give users that role.').withStatus(401))
      }
    }
  }

  /** What a write changes; every check of the request's values runs here, before anything is written. */
  async function changesFrom (req: RestRequest, targetId?: number): Promise<UserChanges> {
    const q = req.params
    const kses = userTextFilter(req.user)
    const changes: UserChanges = {}
    if (typeof q.email === 'string' && q.email !== '') changes.email = q.email
    if (typeof q.name === 'string') changes.displayName = await kses(q.name)
    if (typeof q.slug === 'string') changes.nicename = q.slug
    if (typeof q.url === 'string') changes.url = q.url
    if (typeof q.description === 'string') changes.description = await kses(q.description)
    if (Array.isArray(q.roles) && q.roles.length > 0) changes.roles = q.roles as string[]
    if (typeof q.password === 'string') {
      try { changes.password = checkAccountPassword(q.password) } catch (e) { throw invalidParamOf('password', e) }
    }
    const profile: Partial<Record<ProfileField, string>> = {}
    for (const key of PROFILE_FIELDS) if (typeof q[key] === 'string') profile[key] = key === 'locale' ? q[key] : await kses(q[key])
    changes.profile = profile
    // Registered user meta: every key checked (all failures at once), its authorize and sanitizer; null removes a key.
    if (q.meta !== undefined && metaKeys.length > 0) {
      // A deactivated package's keys are unknown keys (ignored) while it is off.
      const parsed = await parseMetaParam(userMeta.visible(await req.registry.off(req)), q.meta, req.user, targetId === undefined ? undefined : { id: targetId, type: 'user' })
      changes.meta = { ...parsed.set, ...Object.fromEntries(parsed.remove.map((key) => [key, null])) }
    }
    return changes
  }

  // --- permissions ----------------------------------------------------------

  async function canUpdate (req: RestRequest, id: number): Promise<true | RestError> {
    const user = await targetOf(req, id)
    if (!('login' in user)) return user
    if (Array.isArray(req.params.roles) && req.params.roles.length > 0) {
      if (!req.user.can('promote_user', { id: user.id })) return deny(req, userErrors.rest_cannot_edit_roles())
      // Changing only the roles needs only promote_user.
      const sent = Object.keys(req.params).filter((k) => !k.startsWith('_') && k !== 'rest_route').sort()
      if (sent.length === 2 && sent[0] === 'id' && sent[1] === 'roles') return true
    }
    return req.user.can('edit_user', { id: user.id }) ? true : deny(req, userErrors.rest_cannot_edit())
  }

  async function canDelete (req: RestRequest, id: number): Promise<true | RestError> {
    const user = await targetOf(req, id)
    if (!('login' in user)) return user
    return req.user.can('delete_user', { id: user.id }) ? true : deny(req, userErrors.rest_user_cannot_delete())
  }

  // --- handlers -------------------------------------------------------------

  async function update (req: RestRequest, id: number): Promise<Record<string, unknown>> {
    const user = await findUserById(store, id)
    if (user === undefined) throw userErrors.rest_user_invalid_id()
    const username = req.params.username
    if (typeof username === 'string' && username !== '' && username !== user.login) throw userErrors.rest_user_invalid_argument()
    const changes = await changesFrom(req, id)
    if (changes.roles !== undefined) checkRoleUpdate(req, id, changes.roles)
    const updated = await updateUser(store, id, changes)
    forgetUser(req, id)
    return await present(req, updated, { edit: true })
  }

  async function remove (req: RestRequest, id: number): Promise<Record<string, unknown>> {
    const user = await findUserById(store, id)
    if (user === undefined) throw userErrors.rest_user_invalid_id()
    if (req.params.force !== true) throw userErrors.rest_trash_not_supported()
    const raw = req.params.reassign
    // An id, or false / 0 for "delete their posts"; `true` names nobody.
    if (raw === true) throw invalidParamOf('reassign', userErrors.rest_user_invalid_reassign())
    const reassign = typeof raw === 'number' && raw > 0 ? raw : null
    if (reassign !== null && (reassign === id || await findUserById(store, reassign) === undefined)) {
      throw userErrors.rest_user_invalid_reassign()
    }
    const previous = await present(req, user, { edit: true, links: false })
    await deleteUser(store, id, reassign, services.userContent)
    forgetUser(req, id)
    return { deleted: true, previous }
  }

  const signedIn = (req: RestRequest): RestError | number =>
    req.user.id === 0 ? userErrors.rest_not_logged_in() : req.user.id

  // The probes' other user is a subscriber without published posts.
  const other = { vars: { id: 'user' } }
  const collection = route({
    path: '/users',
    schema,
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: collectionArgs,
        summary: 'List users',
        permission: check((req) => {
          const canList = req.user.can('list_users')
          const q = req.params
          if ((q.roles?.length ?? 0) > 0 && !canList) return deny(req, userErrors.rest_user_cannot_view(undefined, 'Sorry, you are not allowed to filter users by role.'))
          if ((q.capabilities?.length ?? 0) > 0 && !canList) return deny(req, userErrors.rest_user_cannot_view(undefined, 'Sorry, you are not allowed to filter users by capability.'))
          if (q.context === 'edit' && !canList) return deny(req, userErrors.rest_forbidden_context())
          if ((q.orderby === 'email' || q.orderby === 'registered_date') && !canList) return deny(req, userErrors.rest_forbidden_orderby())
          if (q.who === 'authors' && !req.user.can('edit_posts') && !req.user.can('edit_pages')) return deny(req, userErrors.rest_forbidden_who())
          return true
        }, who.everyone('anyone may list users (only authors of published posts are shown without list_users)')),
        handler: async (req) => {
          const q = req.params
          const canList = req.user.can('list_users')
          const offset = Math.max(0, q.offset !== undefined && q.offset !== 0 ? q.offset : (q.page - 1) * q.per_page)
          let publishedIn: readonly string[] | undefined
          if (q.who !== 'authors' && !canList) publishedIn = AUTHOR_POST_TYPES
          const hpp = q.has_published_posts
          if (hpp === true) publishedIn = AUTHOR_POST_TYPES
          else if (Array.isArray(hpp) && hpp.length > 0) publishedIn = hpp
          const granted = services.roles.visible(await req.registry.off(req))
          const capabilityRoles = (q.capabilities?.length ?? 0) > 0
            ? ROLES.filter((r) => q.capabilities!.some((c) => c === r || granted.capabilitiesOf(r).has(c)))
            : undefined
          const { users, total } = await listUsers(store, {
            search: q.search,
            searchScope: canList ? 'all' : 'public',
            include: q.include,
            exclude: q.exclude,
            slugs: q.slug,
            roles: q.roles,
            capabilityRoles,
            authorsOnly: q.who === 'authors',
            publishedIn,
            orderby: q.orderby as UserOrderBy,
            order: q.order,
            limit: q.per_page,
            offset
          })
          const page = Math.ceil(offset / q.per_page + 1)
          const body = await presentAll(req, users, { edit: wantsEdit(req) })
          return new RestResponse(body, 200, pageHeaders(req, { total, perPage: q.per_page, page }))
        }
      }),
      endpoint({
        methods: ['POST'],
        args: createArgs,
        summary: 'Create a user',
        responseContext: 'edit',
        permission: can('create_users', { error: userErrors.rest_cannot_create_user, why: 'create_users' }),
        handler: async (req) => {
          const q = req.params
          if (q.id !== undefined && q.id !== null && q.id !== '' && q.id !== 0 && q.id !== '0') throw userErrors.rest_user_exists()
          const roles = Array.isArray(q.roles) ? q.roles : ['subscriber']
          checkRoleUpdate(req, undefined, roles)
          try { checkAccountPassword(q.password) } catch (e) { throw invalidParamOf('password', e) }
          const changes = await changesFrom(req)
          let user: UserRecord
          try {
            user = await createUser(store, {
              login: q.username,
              email: q.email,
              roles,
              password: q.password,
              displayName: changes.displayName,
              nicename: changes.nicename,
              url: changes.url,
              description: changes.description,
              profile: changes.profile,
              meta: changes.meta
            })
          } catch (e) {
            const code = (e as { code?: string }).code
            if (code === 'rest_user_invalid_username') throw invalidParamOf('username', e)
            throw e
          }
          return createdAt(req, await present(req, user, { edit: true }), user.id)
        }
      })
    ]
  })

  const item = route({
    path: '/users/{id}',
    vars: { id: '[\\d]+' },
    schema,
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: { ...idArg, context: contextParam(schema) },
        summary: 'Read a user',
        permission: check(async (req) => {
          const user = await targetOf(req, Number(req.params.id))
          if (!('login' in user)) return user
          if (user.id === req.user.id) return true
          if (req.params.context === 'edit' && !req.user.can('list_users')) return deny(req, userErrors.rest_user_cannot_view())
          if (req.user.can('list_users') || req.user.can('edit_user', { id: user.id })) return true
          return await countPublishedPosts(store, user.id) > 0 ? true : deny(req, userErrors.rest_user_cannot_view())
        }, who.can(['list_users', 'edit_users'], 'a user without published posts is visible to list_users / edit_user holders only', other)),
        handler: async (req) => {
          const user = await targetOf(req, Number(req.params.id))
          if (!('login' in user)) throw user
          return await present(req, user, { edit: wantsEdit(req) })
        }
      }),
      endpoint({
        methods: ['POST', 'PUT', 'PATCH'],
        args: { ...idArg, ...updateArgs },
        summary: 'Update a user',
        responseContext: 'edit',
        permission: check(async (req) => await canUpdate(req, Number(req.params.id)), who.can('edit_users', 'edit_user on another user: edit_users', { ...other, body: { description: 'Probe' } })),
        handler: async (req) => await update(req, Number(req.params.id))
      }),
      endpoint({
        methods: ['DELETE'],
        args: { ...idArg, ...deleteArgs },
        summary: 'Delete a user',
        permission: check(async (req) => await canDelete(req, Number(req.params.id)), who.can('delete_users', 'delete_users', { ...other, query: { force: true } })),
        handler: async (req) => await remove(req, Number(req.params.id))
      })
    ]
  })

  const me = route({
    path: '/users/me',
    schema,
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: { context: contextParam(schema) },
        summary: 'Read the current user',
        example: {
          request: { context: 'view' },
          response: {
            id: 1,
            name: 'admin',
            url: '',
            description: '',
            link: 'https://cms.example.com/?author=1',
            slug: 'admin',
            avatar_urls: Object.fromEntries([24, 48, 96].map((s) => [s, `https://secure.gravatar.com/avatar/0c83f57c786a0b4a39efab23731c7ebc?s=${s}&d=mm&r=g`])),
            _links: {
              self: [{ href: 'https://cms.example.com/index.php?rest_route=/cms/v2/users/1' }],
              collection: [{ href: 'https://cms.example.com/index.php?rest_route=/cms/v2/users' }]
            }
          }
        },
        permission: check((req) => { const id = signedIn(req); return typeof id === 'number' || id }, who.signedIn('§12 `me` while anonymous: 401 rest_not_logged_in')),
        handler: async (req) => {
          const id = signedIn(req)
          if (typeof id !== 'number') throw id
          const user = await targetOf(req, id)
          if (!('login' in user)) throw user
          return await present(req, user, { edit: wantsEdit(req) })
        }
      }),
      endpoint({
        methods: ['POST', 'PUT', 'PATCH'],
        args: updateArgs,
        summary: 'Update the current user',
        responseContext: 'edit',
        permission: check(async (req) => {
          const id = signedIn(req)
          return typeof id === 'number' ? await canUpdate(req, id) : id
        }, who.signedIn('edit_user on oneself needs nothing (§12, as the core allows); anonymous: rest_not_logged_in', { body: { description: 'Probe' } })),
        handler: async (req) => await update(req, req.user.id)
      }),
      endpoint({
        methods: ['DELETE'],
        args: deleteArgs,
        summary: 'Delete the current user',
        permission: check(async (req) => {
          const id = signedIn(req)
          return typeof id === 'number' ? await canDelete(req, id) : id
        }, who.can('delete_users', 'deleting oneself still needs delete_users', { query: { force: true } })),
        handler: async (req) => await remove(req, req.user.id)
      })
    ]
  })

  return [collection, item, me]
}
