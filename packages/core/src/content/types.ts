/**
 * `/cms/v2/types` and `/cms/v2/types/{type}`: every post type the
 * deployment knows (type-registry.ts), as the core describes them. Anyone
 * reads them; the edit context needs the type's `edit_posts`.
 */
import { Type } from '@sinclair/typebox'
import { check, compactLinks, ContextArg, endpoint, who, filterByContext, rel, restUrl, route, type JsonSchema, type Links, type RestError, type RestRequest, type RelativeRouteDecl } from '@cms/rest'
import type { ContentServices as Services } from './services.js'
import { contentErrors, denied } from './errors.js'
import { keyedCollection, taxonomiesOf, type PostTypeInfo, type TypeRegistry } from './type-registry.js'

const ALL = ['view', 'edit', 'embed']
const VE = ['view', 'edit']
const EDIT = ['edit']

export const typeSchema: JsonSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'type',
  type: 'object',
  properties: {
    capabilities: { description: 'All capabilities used by the post type.', type: 'object', context: EDIT, readonly: true },
    description: { description: 'A human-readable description of the post type.', type: 'string', context: VE, readonly: true },
    hierarchical: { description: 'Whether or not the post type should have children.', type: 'boolean', context: VE, readonly: true },
    viewable: { description: 'Whether or not the post type can be viewed.', type: 'boolean', context: EDIT, readonly: true },
    labels: { description: 'Human-readable labels for the post type for various contexts.', type: 'object', context: EDIT, readonly: true },
    name: { description: 'The title for the post type.', type: 'string', context: ALL, readonly: true },
    slug: { description: 'An alphanumeric identifier for the post type.', type: 'string', context: ALL, readonly: true },
    supports: { description: 'All features, supported by the post type.', type: 'object', context: EDIT, readonly: true },
    has_archive: { description: 'If the value is a string, the value will be used as the archive slug. If the value is false the post type has no archive.', type: ['string', 'boolean'], context: VE, readonly: true },
    taxonomies: { description: 'Taxonomies associated with post type.', type: 'array', items: { type: 'string' }, context: VE, readonly: true },
    rest_base: { description: 'REST base route for the post type.', type: 'string', context: ALL, readonly: true },
    rest_namespace: { description: "REST route's namespace for the post type.", type: 'string', context: ALL, readonly: true },
    visibility: {
      description: 'The visibility settings for the post type.',
      type: 'object',
      context: EDIT,
      readonly: true,
      properties: {
        show_ui: { description: 'Whether to generate a default UI for managing this post type.', type: 'boolean' },
        show_in_nav_menus: { description: 'Whether to make the post type available for selection in navigation menus.', type: 'boolean' }
      }
    },
    icon: { description: 'The icon for the post type.', type: ['string', 'null'], context: ALL, readonly: true },
    template: { description: 'The block template associated with the post type.', type: 'array', context: VE, readonly: true },
    template_lock: { description: 'The template_lock associated with the post type, or false if none.', type: ['string', 'boolean'], enum: ['all', 'insert', 'contentOnly', false], context: VE, readonly: true }
  }
}

/** A post type as the core answers it, every field (the context then removes some). */
function formatType (registry: TypeRegistry, type: PostTypeInfo, baseUrl: string): Record<string, unknown> {
  const links: Links = {
    collection: [{ href: restUrl(baseUrl, '/cms/v2/types') }],
    [rel('items')]: [{ href: restUrl(baseUrl, `/${type.restNamespace}/${type.restBase}`) }]
  }
  return {
    capabilities: { ...type.capabilities },
    description: type.description,
    hierarchical: type.hierarchical,
    has_archive: type.hasArchive,
    visibility: { show_in_nav_menus: type.showInNavMenus, show_ui: type.showUi },
    viewable: type.viewable,
    labels: { ...type.labels },
    name: type.name,
    slug: type.slug,
    icon: type.icon,
    supports: { ...type.supports },
    taxonomies: taxonomiesOf(registry, type),
    rest_base: type.restBase,
    rest_namespace: type.restNamespace,
    template: [],
    template_lock: false,
    _links: links
  }
}

function contextOf (req: RestRequest): string {
  return typeof req.params.context === 'string' ? req.params.context : 'view'
}

export function typeRoutes (services: Services): RelativeRouteDecl[] {
  const registry = services.types

  const listPermission = (req: RestRequest): true | RestError => {
    if (req.params.context !== 'edit') return true
    for (const type of registry.postTypes.values()) if (req.user.can(type.capabilities.edit_posts!)) return true
    return denied(contentErrors.rest_cannot_view(), req.user.id)
  }

  // The collection is an object keyed by slug: each entry is shaped here as an item would be.
  const list = (req: RestRequest): Record<string, unknown> => {
    const context = contextOf(req)
    const out: Record<string, unknown> = {}
    for (const type of registry.postTypes.values()) {
      if (context === 'edit' && !req.user.can(type.capabilities.edit_posts!)) continue
      const item = filterByContext(formatType(registry, type, req.baseUrl), typeSchema, context) as Record<string, unknown>
      out[type.slug] = { ...item, _links: compactLinks(item._links as Links) }
    }
    return out
  }

  const readPermission = (req: RestRequest): true | RestError => {
    const type = registry.postTypes.get(String(req.params.type))
    if (type === undefined) return contentErrors.rest_type_invalid()
    if (req.params.context === 'edit' && !req.user.can(type.capabilities.edit_posts!)) return denied(contentErrors.rest_forbidden_context(), req.user.id)
    return true
  }

  const read = (req: RestRequest): Record<string, unknown> => {
    const type = registry.postTypes.get(String(req.params.type))
    if (type === undefined) throw contentErrors.rest_type_invalid()
    return formatType(registry, type, req.baseUrl)
  }

  return [
    route({
      path: '/types',
      schema: keyedCollection(typeSchema, 'types'),
      endpoints: [endpoint({ methods: ['GET'], summary: 'List post types', args: { context: ContextArg() }, permission: check(listPermission, who.everyone("types are public (the edit context needs a type's edit_posts)")), handler: list })]
    }),
    route({
      path: '/types/{type}',
      vars: { type: '[\\w-]+' },
      args: { type: Type.Optional(Type.String({ description: 'An alphanumeric identifier for the post type.' })) },
      schema: typeSchema,
      endpoints: [endpoint({ methods: ['GET'], summary: 'Read a post type', args: { context: ContextArg() }, permission: check(readPermission, who.everyone('a type is public (the edit context needs its edit_posts)', { vars: { type: 'post' } })), handler: read })]
    })
  ]
}
