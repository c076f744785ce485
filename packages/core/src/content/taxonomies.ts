/**
 * `/cms/v2/taxonomies` and `/cms/v2/taxonomies/{taxonomy}`: every taxonomy
 * the deployment knows (type-registry.ts), as the core describes them.
 * Anyone reads them; the edit context needs the taxonomy's `assign_terms`.
 */
import { Type } from '@sinclair/typebox'
import { check, compactLinks, ContextArg, endpoint, who, filterByContext, rel, restUrl, route, type JsonSchema, type Links, type RestError, type RestRequest, type RelativeRouteDecl } from '@cms/rest'
import type { ContentServices as Services } from './services.js'
import { contentErrors, denied } from './errors.js'
import { keyedCollection, typesOf, type TaxonomyInfo, type TypeRegistry } from './type-registry.js'

const ALL = ['view', 'edit', 'embed']
const VE = ['view', 'edit']
const EDIT = ['edit']

export const taxonomySchema: JsonSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'taxonomy',
  type: 'object',
  properties: {
    capabilities: { description: 'All capabilities used by the taxonomy.', type: 'object', context: EDIT, readonly: true },
    description: { description: 'A human-readable description of the taxonomy.', type: 'string', context: VE, readonly: true },
    hierarchical: { description: 'Whether or not the taxonomy should have children.', type: 'boolean', context: VE, readonly: true },
    labels: { description: 'Human-readable labels for the taxonomy for various contexts.', type: 'object', context: EDIT, readonly: true },
    name: { description: 'The title for the taxonomy.', type: 'string', context: ALL, readonly: true },
    slug: { description: 'An alphanumeric identifier for the taxonomy.', type: 'string', context: ALL, readonly: true },
    show_cloud: { description: 'Whether or not the term cloud should be displayed.', type: 'boolean', context: EDIT, readonly: true },
    types: { description: 'Types associated with the taxonomy.', type: 'array', items: { type: 'string' }, context: VE, readonly: true },
    rest_base: { description: 'REST base route for the taxonomy.', type: 'string', context: ALL, readonly: true },
    rest_namespace: { description: 'REST namespace route for the taxonomy.', type: 'string', context: ALL, readonly: true },
    visibility: {
      description: 'The visibility settings for the taxonomy.',
      type: 'object',
      context: EDIT,
      readonly: true,
      properties: {
        public: { description: 'Whether a taxonomy is intended for use publicly either via the admin interface or by front-end users.', type: 'boolean' },
        publicly_queryable: { description: 'Whether the taxonomy is publicly queryable.', type: 'boolean' },
        show_ui: { description: 'Whether to generate a default UI for managing this taxonomy.', type: 'boolean' },
        show_admin_column: { description: 'Whether to allow automatic creation of taxonomy columns on associated post-types table.', type: 'boolean' },
        show_in_nav_menus: { description: 'Whether to make the taxonomy available for selection in navigation menus.', type: 'boolean' },
        show_in_quick_edit: { description: 'Whether to show the taxonomy in the quick/bulk edit panel.', type: 'boolean' }
      }
    }
  }
}

function formatTaxonomy (registry: TypeRegistry, tax: TaxonomyInfo, baseUrl: string): Record<string, unknown> {
  const links: Links = {
    collection: [{ href: restUrl(baseUrl, '/cms/v2/taxonomies') }],
    [rel('items')]: [{ href: restUrl(baseUrl, `/${tax.restNamespace}/${tax.restBase}`) }]
  }
  return {
    name: tax.name,
    slug: tax.slug,
    capabilities: { ...tax.capabilities },
    description: tax.description,
    labels: { ...tax.labels },
    types: typesOf(registry, tax),
    show_cloud: tax.showCloud,
    hierarchical: tax.hierarchical,
    rest_base: tax.restBase,
    rest_namespace: tax.restNamespace,
    visibility: { public: true, publicly_queryable: true, show_admin_column: true, show_in_nav_menus: true, show_in_quick_edit: true, show_ui: true },
    _links: links
  }
}

export function taxonomyRoutes (services: Services): RelativeRouteDecl[] {
  const registry = services.types

  /** The taxonomies of `type` when given (none for an unknown type), else all. */
  const selected = (req: RestRequest): TaxonomyInfo[] => {
    const all = [...registry.taxonomies.values()]
    if (typeof req.params.type !== 'string' || req.params.type === '') return all
    const type = req.params.type
    return all.filter((tax) => typesOf(registry, tax).includes(type))
  }

  const listPermission = (req: RestRequest): true | RestError => {
    if (req.params.context !== 'edit') return true
    if (selected(req).some((tax) => req.user.can(tax.capabilities.assign_terms!))) return true
    return denied(contentErrors.rest_cannot_view(undefined, 'Sorry, you are not allowed to manage terms in this taxonomy.'), req.user.id)
  }

  // Keyed by slug, as the core answers (an empty object when none).
  const list = (req: RestRequest): Record<string, unknown> => {
    const context = typeof req.params.context === 'string' ? req.params.context : 'view'
    const out: Record<string, unknown> = {}
    for (const tax of selected(req)) {
      if (context === 'edit' && !req.user.can(tax.capabilities.assign_terms!)) continue
      const item = filterByContext(formatTaxonomy(registry, tax, req.baseUrl), taxonomySchema, context) as Record<string, unknown>
      out[tax.slug] = { ...item, _links: compactLinks(item._links as Links) }
    }
    return out
  }

  const readPermission = (req: RestRequest): true | RestError => {
    const tax = registry.taxonomies.get(String(req.params.taxonomy))
    if (tax === undefined) return contentErrors.rest_taxonomy_invalid()
    if (req.params.context === 'edit' && !req.user.can(tax.capabilities.assign_terms!)) {
      return denied(contentErrors.rest_forbidden_context(undefined, 'Sorry, you are not allowed to manage terms in this taxonomy.'), req.user.id)
    }
    return true
  }

  const read = (req: RestRequest): Record<string, unknown> => {
    const tax = registry.taxonomies.get(String(req.params.taxonomy))
    if (tax === undefined) throw contentErrors.rest_taxonomy_invalid()
    return formatTaxonomy(registry, tax, req.baseUrl)
  }

  return [
    route({
      path: '/taxonomies',
      schema: keyedCollection(taxonomySchema, 'taxonomies'),
      endpoints: [endpoint({
        methods: ['GET'],
        summary: 'List taxonomies',
        args: {
          context: ContextArg(),
          type: Type.Optional(Type.String({ description: 'Limit results to taxonomies associated with a specific post type.' }))
        },
        permission: check(listPermission, who.everyone('taxonomies are public (the edit context needs assign_terms)')),
        handler: list
      })]
    }),
    route({
      path: '/taxonomies/{taxonomy}',
      vars: { taxonomy: '[\\w-]+' },
      args: { taxonomy: Type.Optional(Type.String({ description: 'An alphanumeric identifier for the taxonomy.' })) },
      schema: taxonomySchema,
      endpoints: [endpoint({
        methods: ['GET'],
        summary: 'Read a taxonomy',
        args: { context: ContextArg() },
        permission: check(readPermission,
          who.everyone('a taxonomy is public', { vars: { taxonomy: 'post_tag' } }),
          who.can('edit_posts', 'its edit context needs assign_terms (assign_post_tags: edit_posts)', { vars: { taxonomy: 'post_tag' }, query: { context: 'edit' } })),
        handler: read
      })]
    })
  ]
}
