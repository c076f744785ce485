/**
 * `/cms/v2/statuses` and `/cms/v2/statuses/{status}`: the post statuses, as
 * the core describes them. A public status (publish) is readable by anyone;
 * the others only by a user who may edit posts of some type; internal ones
 * (auto-draft, inherit, the request statuses) by nobody, trash excepted.
 */
import { Type } from '@sinclair/typebox'
import { check, compactLinks, ContextArg, endpoint, who, filterByContext, restUrl, route, type JsonSchema, type Links, type Principal, type RestError, type RestRequest, type RelativeRouteDecl } from '@cms/rest'
import type { ContentServices as Services } from './services.js'
import { contentErrors, denied } from './errors.js'
import { restUrlWithQuery } from './post-format.js'
import { keyedCollection, type TypeRegistry } from './type-registry.js'

interface PostStatus {
  slug: string
  name: string
  public: boolean
  protected: boolean
  private: boolean
  internal: boolean
  queryable: boolean
  showInList: boolean
  dateFloating: boolean
}

function status (slug: string, name: string, flags: Partial<Omit<PostStatus, 'slug' | 'name'>>): PostStatus {
  const pub = flags.public ?? false
  const internal = flags.internal ?? false
  return {
    slug,
    name,
    public: pub,
    protected: flags.protected ?? false,
    private: flags.private ?? false,
    internal,
    queryable: flags.queryable ?? pub,
    showInList: flags.showInList ?? !internal,
    dateFloating: flags.dateFloating ?? false
  }
}

/** The core's statuses, in its registration order. */
const STATUSES: readonly PostStatus[] = [
  status('publish', 'Published', { public: true }),
  status('future', 'Scheduled', { protected: true }),
  status('draft', 'Draft', { protected: true, dateFloating: true }),
  status('pending', 'Pending', { protected: true, dateFloating: true }),
  status('private', 'Private', { private: true }),
  status('trash', 'Trash', { internal: true }),
  status('auto-draft', 'auto-draft', { internal: true, dateFloating: true }),
  status('inherit', 'inherit', { internal: true }),
  status('request-pending', 'Pending', { internal: true }),
  status('request-confirmed', 'Confirmed', { internal: true }),
  status('request-failed', 'Failed', { internal: true }),
  status('request-completed', 'Completed', { internal: true })
]

const ALL = ['embed', 'view', 'edit']
const VE = ['view', 'edit']
const EDIT = ['edit']

export const statusSchema: JsonSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'status',
  type: 'object',
  properties: {
    name: { description: 'The title for the status.', type: 'string', context: ALL, readonly: true },
    private: { description: 'Whether posts with this status should be private.', type: 'boolean', context: EDIT, readonly: true },
    protected: { description: 'Whether posts with this status should be protected.', type: 'boolean', context: EDIT, readonly: true },
    public: { description: 'Whether posts of this status should be shown in the front end of the site.', type: 'boolean', context: VE, readonly: true },
    queryable: { description: 'Whether posts with this status should be publicly-queryable.', type: 'boolean', context: VE, readonly: true },
    show_in_list: { description: 'Whether to include posts in the edit listing for their post type.', type: 'boolean', context: EDIT, readonly: true },
    slug: { description: 'An alphanumeric identifier for the status.', type: 'string', context: ALL, readonly: true },
    date_floating: { description: 'Whether posts of this status may have floating published dates.', type: 'boolean', context: VE, readonly: true }
  }
}

/** Whether the user may edit posts of any type the deployment knows. */
function editsSomeType (registry: TypeRegistry, user: Principal): boolean {
  for (const type of registry.postTypes.values()) if (user.can(type.capabilities.edit_posts!)) return true
  return false
}

function mayRead (registry: TypeRegistry, user: Principal, s: PostStatus): boolean {
  if (s.public) return true
  return (!s.internal || s.slug === 'trash') && editsSomeType(registry, user)
}

function formatStatus (s: PostStatus, baseUrl: string): Record<string, unknown> {
  const links: Links = {
    archives: [{ href: s.slug === 'publish' ? restUrl(baseUrl, '/cms/v2/posts') : restUrlWithQuery(baseUrl, '/cms/v2/posts', { status: s.slug }) }]
  }
  return {
    name: s.name,
    private: s.private,
    protected: s.protected,
    public: s.public,
    queryable: s.queryable,
    show_in_list: s.showInList,
    slug: s.slug,
    date_floating: s.dateFloating,
    _links: links
  }
}

export function statusRoutes (services: Services): RelativeRouteDecl[] {
  const registry = services.types

  const listPermission = (req: RestRequest): true | RestError => {
    if (req.params.context === 'edit' && !editsSomeType(registry, req.user)) {
      return denied(contentErrors.rest_cannot_view(undefined, 'Sorry, you are not allowed to manage post statuses.'), req.user.id)
    }
    return true
  }

  // Keyed by slug: the non-internal statuses and trash, those the caller may read.
  const list = (req: RestRequest): Record<string, unknown> => {
    const context = typeof req.params.context === 'string' ? req.params.context : 'view'
    const out: Record<string, unknown> = {}
    for (const s of STATUSES) {
      if ((s.internal && s.slug !== 'trash') || !mayRead(registry, req.user, s)) continue
      const item = filterByContext(formatStatus(s, req.baseUrl), statusSchema, context) as Record<string, unknown>
      out[s.slug] = { ...item, _links: compactLinks(item._links as Links) }
    }
    return out
  }

  const find = (req: RestRequest): PostStatus | undefined => STATUSES.find((s) => s.slug === String(req.params.status))

  const readPermission = (req: RestRequest): true | RestError => {
    const s = find(req)
    if (s === undefined) return contentErrors.rest_status_invalid()
    if (!mayRead(registry, req.user, s)) return denied(contentErrors.rest_cannot_read_status(), req.user.id)
    return true
  }

  const read = (req: RestRequest): Record<string, unknown> => {
    const s = find(req)
    if (s === undefined) throw contentErrors.rest_status_invalid()
    return formatStatus(s, req.baseUrl)
  }

  return [
    route({
      path: '/statuses',
      schema: keyedCollection(statusSchema, 'statuses'),
      endpoints: [endpoint({ methods: ['GET'], summary: 'List post statuses', args: { context: ContextArg() }, permission: check(listPermission, who.everyone('statuses are public (only publish for callers who edit no type)')), handler: list })]
    }),
    route({
      path: '/statuses/{status}',
      vars: { status: '[\\w-]+' },
      args: { status: Type.Optional(Type.String({ description: 'An alphanumeric identifier for the status.' })) },
      schema: statusSchema,
      endpoints: [endpoint({
        methods: ['GET'],
        summary: 'Read a post status',
        args: { context: ContextArg() },
        permission: check(readPermission,
          who.everyone('the public status is readable by anyone', { vars: { status: 'publish' } }),
          who.can('edit_posts', 'another status needs edit_posts of some type', { vars: { status: 'draft' } })),
        handler: read
      })]
    })
  ]
}
