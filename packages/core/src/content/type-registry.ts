/**
 * The post types and taxonomies a deployment knows. The core registers
 * `post`, `page`, `category` and `post_tag`; a package adds its own types
 * (`attachment`, the builder's library type) with `registerPostType` and its
 * taxonomies with `registerTaxonomy`, when its routes are built.
 * `/cms/v2/types` and `/cms/v2/taxonomies` list what is registered when asked.
 *
 * One registry per deployment (`services.types`): two apps in one process
 * (tests, namespace services) do not see each other's types.
 */
import type { JsonSchema } from '@cms/rest'

export interface PostTypeDefinition {
  slug: string
  /** Plural label: `Posts`. */
  name: string
  /** Singular label: `Post` (default: the plural). Labels are derived from both unless given. */
  singularName?: string
  description?: string
  hierarchical?: boolean
  /** An archive slug, or false. */
  hasArchive?: boolean | string
  /** Default: the slug. */
  restBase?: string
  /** Default: `cms/v2`. */
  restNamespace?: string
  /** Taxonomies the type uses (also added to each taxonomy's `types`). */
  taxonomies?: readonly string[]
  /** Features the type supports: names, or names with options. */
  supports?: readonly string[] | Readonly<Record<string, unknown>>
  viewable?: boolean
  icon?: string | null
  showUi?: boolean
  showInNavMenus?: boolean
  /**
   * Singular and plural words of its capability names (`['page', 'pages']`
   * gives `edit_pages`...); default `['post', 'posts']`.
   */
  capabilityType?: readonly [string, string]
  /** Capability names that differ from those the capability type gives (`create_posts: 'upload_files'`). */
  capabilities?: Readonly<Record<string, string>>
  labels?: Readonly<Record<string, string | null>>
}

/** A registered post type, every field resolved. */
export interface PostTypeInfo {
  slug: string
  name: string
  description: string
  hierarchical: boolean
  hasArchive: boolean | string
  restBase: string
  restNamespace: string
  /** Taxonomies named by the definition (see `taxonomiesOf` for all). */
  taxonomies: readonly string[]
  supports: Record<string, unknown>
  viewable: boolean
  icon: string | null
  showUi: boolean
  showInNavMenus: boolean
  /** `edit_posts: 'edit_pages'`...: what the type's own names mean. */
  capabilities: Record<string, string>
  labels: Record<string, string | null>
}

export interface TaxonomyDefinition {
  slug: string
  name: string
  singularName?: string
  description?: string
  /** Post types the taxonomy applies to. */
  types?: readonly string[]
  hierarchical?: boolean
  restBase?: string
  restNamespace?: string
  showCloud?: boolean
  /** `manage_terms`, `edit_terms`, `delete_terms`, `assign_terms` (default: `manage_categories`, `edit_posts`...). */
  capabilities?: Readonly<Record<string, string>>
  labels?: Readonly<Record<string, string | null>>
}

export interface TaxonomyInfo {
  slug: string
  name: string
  description: string
  types: readonly string[]
  hierarchical: boolean
  restBase: string
  restNamespace: string
  showCloud: boolean
  capabilities: Record<string, string>
  labels: Record<string, string | null>
}

/** The post types and taxonomies of one deployment, the core's registered first. */
export class TypeRegistry {
  readonly postTypes = new Map<string, PostTypeInfo>()
  readonly taxonomies = new Map<string, TaxonomyInfo>()

  constructor () {
    for (const def of CORE_TYPES) this.postTypes.set(def.slug, resolveType(def))
    for (const def of CORE_TAXONOMIES) this.taxonomies.set(def.slug, resolveTaxonomy(def))
  }

  /** Adds a post type to the deployment; a slug already registered is an error. */
  registerPostType (def: PostTypeDefinition): PostTypeInfo {
    if (!/^[a-z0-9_-]{1,20}$/.test(def.slug)) throw new Error(`post type "${def.slug}": slugs are 1-20 of a-z, 0-9, _ and -`)
    if (this.postTypes.has(def.slug)) throw new Error(`post type "${def.slug}" is already registered`)
    const info = resolveType(def)
    this.postTypes.set(def.slug, info)
    return info
  }

  /** Adds a taxonomy to the deployment; a slug already registered is an error. */
  registerTaxonomy (def: TaxonomyDefinition): TaxonomyInfo {
    if (!/^[a-z0-9_-]{1,32}$/.test(def.slug)) throw new Error(`taxonomy "${def.slug}": slugs are 1-32 of a-z, 0-9, _ and -`)
    if (this.taxonomies.has(def.slug)) throw new Error(`taxonomy "${def.slug}" is already registered`)
    const info = resolveTaxonomy(def)
    this.taxonomies.set(def.slug, info)
    return info
  }
}

/** The taxonomies of a post type: those it names and those naming it, in registration order. */
export function taxonomiesOf (registry: TypeRegistry, type: PostTypeInfo): string[] {
  return [...registry.taxonomies.values()]
    .filter((tax) => tax.types.includes(type.slug) || type.taxonomies.includes(tax.slug))
    .map((tax) => tax.slug)
}

/** The post types of a taxonomy: those it names and those naming it. */
export function typesOf (registry: TypeRegistry, tax: TaxonomyInfo): string[] {
  const out = [...tax.types]
  for (const type of registry.postTypes.values()) {
    if (type.taxonomies.includes(tax.slug) && !out.includes(type.slug)) out.push(type.slug)
  }
  return out
}

function resolveType (def: PostTypeDefinition): PostTypeInfo {
  const [one, many] = def.capabilityType ?? ['post', 'posts']
  const capabilities: Record<string, string> = {
    edit_post: `edit_${one}`,
    read_post: `read_${one}`,
    delete_post: `delete_${one}`,
    edit_posts: `edit_${many}`,
    edit_others_posts: `edit_others_${many}`,
    delete_posts: `delete_${many}`,
    publish_posts: `publish_${many}`,
    read_private_posts: `read_private_${many}`,
    read: 'read',
    delete_private_posts: `delete_private_${many}`,
    delete_published_posts: `delete_published_${many}`,
    delete_others_posts: `delete_others_${many}`,
    edit_private_posts: `edit_private_${many}`,
    edit_published_posts: `edit_published_${many}`,
    create_posts: `edit_${many}`,
    ...def.capabilities
  }
  const supports: Record<string, unknown> = {}
  if (Array.isArray(def.supports)) for (const name of def.supports as readonly string[]) supports[name] = true
  else Object.assign(supports, def.supports ?? { title: true, editor: true })
  const hierarchical = def.hierarchical ?? false
  return {
    slug: def.slug,
    name: def.name,
    description: def.description ?? '',
    hierarchical,
    hasArchive: def.hasArchive ?? false,
    restBase: def.restBase ?? def.slug,
    restNamespace: def.restNamespace ?? 'cms/v2',
    taxonomies: [...(def.taxonomies ?? [])],
    supports,
    viewable: def.viewable ?? true,
    icon: def.icon ?? null,
    showUi: def.showUi ?? true,
    showInNavMenus: def.showInNavMenus ?? true,
    capabilities,
    labels: { ...typeLabels(def.name, def.singularName ?? def.name, hierarchical), ...def.labels }
  }
}

function resolveTaxonomy (def: TaxonomyDefinition): TaxonomyInfo {
  const hierarchical = def.hierarchical ?? false
  return {
    slug: def.slug,
    name: def.name,
    description: def.description ?? '',
    types: [...(def.types ?? [])],
    hierarchical,
    restBase: def.restBase ?? def.slug,
    restNamespace: def.restNamespace ?? 'cms/v2',
    showCloud: def.showCloud ?? true,
    capabilities: { manage_terms: 'manage_categories', edit_terms: 'manage_categories', delete_terms: 'manage_categories', assign_terms: 'edit_posts', ...def.capabilities },
    labels: { ...taxonomyLabels(def.name, def.singularName ?? def.name, hierarchical), ...def.labels }
  }
}

/** The core's label set of a post type, from its plural and singular names. */
function typeLabels (plural: string, singular: string, hierarchical: boolean): Record<string, string | null> {
  const lp = plural.toLowerCase()
  const ls = singular.toLowerCase()
  return {
    name: plural,
    singular_name: singular,
    add_new: `Add New ${singular}`,
    add_new_item: `Add New ${singular}`,
    edit_item: `Edit ${singular}`,
    new_item: `New ${singular}`,
    view_item: `View ${singular}`,
    view_items: `View ${plural}`,
    search_items: `Search ${plural}`,
    not_found: `No ${lp} found.`,
    not_found_in_trash: `No ${lp} found in Trash.`,
    parent_item_colon: hierarchical ? `Parent ${singular}:` : null,
    all_items: `All ${plural}`,
    archives: `${singular} Archives`,
    attributes: `${singular} Attributes`,
    insert_into_item: `Insert into ${ls}`,
    uploaded_to_this_item: `Uploaded to this ${ls}`,
    featured_image: 'Featured image',
    set_featured_image: 'Set featured image',
    remove_featured_image: 'Remove featured image',
    use_featured_image: 'Use as featured image',
    filter_items_list: `Filter ${lp} list`,
    filter_by_date: 'Filter by date',
    items_list_navigation: `${plural} list navigation`,
    items_list: `${plural} list`,
    item_published: `${singular} published.`,
    item_published_privately: `${singular} published privately.`,
    item_reverted_to_draft: `${singular} reverted to draft.`,
    item_trashed: `${singular} trashed.`,
    item_scheduled: `${singular} scheduled.`,
    item_updated: `${singular} updated.`,
    item_link: `${singular} Link`,
    item_link_description: `A link to a ${ls}.`,
    menu_name: plural,
    name_admin_bar: singular,
    template_name: `Single item: ${singular}`
  }
}

/** The core's label set of a taxonomy. */
function taxonomyLabels (plural: string, singular: string, hierarchical: boolean): Record<string, string | null> {
  const lp = plural.toLowerCase()
  const ls = singular.toLowerCase()
  return {
    name: plural,
    singular_name: singular,
    search_items: `Search ${plural}`,
    popular_items: hierarchical ? null : `Popular ${plural}`,
    all_items: `All ${plural}`,
    parent_item: hierarchical ? `Parent ${singular}` : null,
    parent_item_colon: hierarchical ? `Parent ${singular}:` : null,
    edit_item: `Edit ${singular}`,
    view_item: `View ${singular}`,
    update_item: `Update ${singular}`,
    add_new_item: `Add New ${singular}`,
    new_item_name: `New ${singular} Name`,
    separate_items_with_commas: hierarchical ? null : `Separate ${lp} with commas`,
    add_or_remove_items: hierarchical ? null : `Add or remove ${lp}`,
    choose_from_most_used: hierarchical ? null : `Choose from the most used ${lp}`,
    not_found: `No ${lp} found.`,
    no_terms: `No ${lp}`,
    filter_by_item: hierarchical ? `Filter by ${ls}` : null,
    items_list_navigation: `${plural} list navigation`,
    items_list: `${plural} list`,
    most_used: 'Most Used',
    back_to_items: `Go to ${plural}`,
    item_link: `${singular} Link`,
    item_link_description: `A link to a ${ls}.`,
    menu_name: plural,
    name_admin_bar: ls
  }
}

const CORE_TYPES: PostTypeDefinition[] = [
  {
    slug: 'post',
    name: 'Posts',
    singularName: 'Post',
    restBase: 'posts',
    supports: ['title', 'editor', 'author', 'thumbnail', 'excerpt', 'trackbacks', 'custom-fields', 'comments', 'revisions', 'post-formats', 'autosave'],
    icon: 'admin-post'
  },
  {
    slug: 'page',
    name: 'Pages',
    singularName: 'Page',
    restBase: 'pages',
    hierarchical: true,
    supports: ['title', 'editor', 'author', 'thumbnail', 'page-attributes', 'custom-fields', 'comments', 'revisions', 'autosave'],
    icon: 'admin-page',
    capabilityType: ['page', 'pages']
  }
]

const CORE_TAXONOMIES: TaxonomyDefinition[] = [
  {
    slug: 'category',
    name: 'Categories',
    singularName: 'Category',
    types: ['post'],
    hierarchical: true,
    restBase: 'categories',
    capabilities: { manage_terms: 'manage_categories', edit_terms: 'edit_categories', delete_terms: 'delete_categories', assign_terms: 'assign_categories' }
  },
  {
    slug: 'post_tag',
    name: 'Tags',
    singularName: 'Tag',
    types: ['post'],
    restBase: 'tags',
    capabilities: { manage_terms: 'manage_post_tags', edit_terms: 'edit_post_tags', delete_terms: 'delete_post_tags', assign_terms: 'assign_post_tags' }
  }
]

/**
 * The schema of a collection answered as an object keyed by slug (types,
 * statuses, taxonomies): each value is an item. Its handler shapes each item
 * for the context; the kernel's filter would take the keys for the item's
 * properties (a status named `private` is also an edit-only property).
 */
export function keyedCollection (item: JsonSchema, title: string): JsonSchema {
  const { $schema, ...each } = item
  return { $schema, title, type: 'object', additionalProperties: each }
}
