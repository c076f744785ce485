/**
 * The item schemas (posts, pages, revisions, autosaves) and the argument
 * declarations of their routes; the write arguments are derived from the
 * post schema (`argsFromSchema`). The schemas' `context` lists decide which
 * fields each context shows.
 */
import { Type } from '@sinclair/typebox'
import { collectionParams, secret, contextParam, Enum, field, IntList, itemSchema, Raw, StringList, unvalidated, type ItemSchema, type JsonSchema } from '@cms/rest'
import type { FieldRegistry } from '../platform/fields.js'
import { metaSchema, type MetaRegistry } from '../platform/meta.js'
import { LIST_STATUSES, POST_FORMATS, WRITE_STATUSES, type PostType } from './post-types.js'

const ALL = ['view', 'edit', 'embed']
const VE = ['view', 'edit']
const EDIT = ['edit']

/**
 * Every field a post can have, in the core's order; `postItemSchema` keeps
 * those of a type. The write arguments are derived from it
 * (`argsFromSchema`): title, content, excerpt and meta are checked by the
 * handler (a string or an object, nulls that delete).
 */
function postFields (meta: MetaRegistry) {
  return {
    date: field({ description: "The date the post was published, in the site's timezone.", type: ['string', 'null'], format: 'date-time', context: ALL }),
    date_gmt: field({ description: 'The date the post was published, as GMT.', type: ['string', 'null'], format: 'date-time', context: VE }),
    guid: field({
      description: 'The globally unique identifier for the post.',
      type: 'object',
      context: VE,
      readonly: true,
      properties: {
        raw: { description: 'GUID for the post, as it exists in the database.', type: 'string', context: EDIT, readonly: true },
        rendered: { description: 'GUID for the post, transformed for display.', type: 'string', context: VE, readonly: true }
      }
    }),
    id: field({ description: 'Unique identifier for the post.', type: 'integer', context: ALL, readonly: true }),
    link: field({ description: 'URL to the post.', type: 'string', format: 'uri', context: ALL, readonly: true }),
    modified: field({ description: "The date the post was last modified, in the site's timezone.", type: 'string', format: 'date-time', context: VE, readonly: true }),
    modified_gmt: field({ description: 'The date the post was last modified, as GMT.', type: 'string', format: 'date-time', context: VE, readonly: true }),
    slug: field({ description: 'An alphanumeric identifier for the post unique to its type.', type: 'string', context: ALL }),
    status: field({ description: 'A named status for the post.', type: 'string', enum: [...WRITE_STATUSES], context: VE }),
    type: field({ description: 'Type of post.', type: 'string', context: ALL, readonly: true }),
    // Secret: the audit log keeps its name only.
    password: secret(field({ description: 'A password to protect access to the content and excerpt.', type: 'string', context: EDIT })),
    permalink_template: field({ description: 'Permalink template for the post.', type: 'string', context: EDIT, readonly: true }),
    generated_slug: field({ description: 'Slug automatically generated from the post title.', type: 'string', context: EDIT, readonly: true }),
    class_list: field({ description: 'An array of the class names for the post container element.', type: 'array', items: { type: 'string' }, context: VE, readonly: true }),
    parent: field({ description: 'The ID for the parent of the post.', type: 'integer', context: VE }),
    title: unvalidated(field({
      description: 'The title for the post.',
      type: 'object',
      context: ALL,
      properties: {
        raw: { description: 'Title for the post, as it exists in the database.', type: 'string', context: EDIT },
        rendered: { description: 'HTML title for the post, transformed for display.', type: 'string', context: ALL, readonly: true }
      }
    })),
    content: unvalidated(field({
      description: 'The content for the post.',
      type: 'object',
      context: VE,
      properties: {
        raw: { description: 'Content for the post, as it exists in the database.', type: 'string', context: EDIT },
        rendered: { description: 'HTML content for the post, transformed for display.', type: 'string', context: VE, readonly: true },
        block_version: { description: 'Version of the content block format used by the post.', type: 'integer', context: EDIT, readonly: true },
        protected: { description: 'Whether the content is protected with a password.', type: 'boolean', context: ALL, readonly: true }
      }
    })),
    author: field({ description: 'The ID for the author of the post.', type: 'integer', context: ALL }),
    excerpt: unvalidated(field({
      description: 'The excerpt for the post.',
      type: 'object',
      context: ALL,
      properties: {
        raw: { description: 'Excerpt for the post, as it exists in the database.', type: 'string', context: EDIT },
        rendered: { description: 'HTML excerpt for the post, transformed for display.', type: 'string', context: ALL, readonly: true },
        protected: { description: 'Whether the excerpt is protected with a password.', type: 'boolean', context: ALL, readonly: true }
      }
    })),
    featured_media: field({ description: 'The ID of the featured media for the post.', type: 'integer', context: ALL }),
    comment_status: field({ description: 'Whether or not comments are open on the post.', type: 'string', enum: ['open', 'closed'], context: VE }),
    ping_status: field({ description: 'Whether or not the post can be pinged.', type: 'string', enum: ['open', 'closed'], context: VE }),
    menu_order: field({ description: 'The order of the post in relation to other posts.', type: 'integer', context: VE }),
    format: field({ description: 'The format for the post.', type: 'string', enum: [...POST_FORMATS], context: VE }),
    meta: unvalidated(field({ description: 'Meta fields.', type: 'object', context: VE, properties: metaSchema(meta) })),
    sticky: field({ description: 'Whether or not the post should be treated as sticky.', type: 'boolean', context: VE }),
    template: field({ description: 'The theme file to use to display the post.', type: 'string', context: VE }),
    categories: field({ description: 'The terms assigned to the post in the category taxonomy.', type: 'array', items: { type: 'integer' }, context: VE }),
    tags: field({ description: 'The terms assigned to the post in the post_tag taxonomy.', type: 'array', items: { type: 'integer' }, context: VE })
  }
}

// Fields (and list arguments) only some types have: pages nest and are ordered, posts have terms.
const HIERARCHICAL_ONLY = ['parent', 'parent_exclude', 'menu_order']
const TERMS_ONLY = ['format', 'sticky', 'categories', 'tags', 'tax_relation', 'categories_exclude', 'tags_exclude', 'ignore_sticky']

/** `all` without the members the type does not have (the order kept); typed as `all`. */
function forType<T extends Record<string, unknown>> (spec: PostType, all: T): T {
  const out: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(all)) {
    if (!spec.hierarchical && HIERARCHICAL_ONLY.includes(name)) continue
    if (!spec.hasTerms && TERMS_ONLY.includes(name)) continue
    out[name] = value
  }
  return out as T
}

export type PostSchema = ItemSchema<ReturnType<typeof postFields>>

/** The JSON schema of a post or page, with the fields packages registered on its type (after the core's). */
export function postItemSchema (spec: PostType, meta: MetaRegistry, fields?: FieldRegistry): PostSchema {
  const core = forType(spec, postFields(meta))
  if (fields === undefined || !fields.has(spec.type)) return itemSchema(spec.type, core)
  return itemSchema(spec.type, { ...core, ...fields.schemaProperties(spec.type, core) } as typeof core)
}

function renderedObject (description: string, props: Record<string, JsonSchema>, context: string[]): JsonSchema {
  return { description, type: 'object', context, properties: props }
}

/** The JSON schema of a revision; autosaves add `preview_link`. */
export function revisionItemSchema (spec: PostType, meta: MetaRegistry, autosave = false): JsonSchema {
  const p: Record<string, JsonSchema> = {
    author: { description: 'The ID for the author of the revision.', type: 'integer', context: ALL },
    date: { description: "The date the revision was published, in the site's timezone.", type: ['string', 'null'], format: 'date-time', context: ALL },
    date_gmt: { description: 'The date the revision was published, as GMT.', type: ['string', 'null'], format: 'date-time', context: VE },
    guid: renderedObject('The globally unique identifier for the revision.', {
      raw: { description: 'GUID for the revision, as it exists in the database.', type: 'string', context: EDIT, readonly: true },
      rendered: { description: 'GUID for the revision, transformed for display.', type: 'string', context: VE, readonly: true }
    }, VE),
    id: { description: 'Unique identifier for the revision.', type: 'integer', context: ALL },
    modified: { description: "The date the revision was last modified, in the site's timezone.", type: 'string', format: 'date-time', context: VE },
    modified_gmt: { description: 'The date the revision was last modified, as GMT.', type: 'string', format: 'date-time', context: VE },
    parent: { description: 'The ID for the parent of the revision.', type: 'integer', context: ALL },
    slug: { description: 'An alphanumeric identifier for the revision unique to its type.', type: 'string', context: ALL },
    title: renderedObject('The title for the post.', {
      raw: { description: 'Title for the post, as it exists in the database.', type: 'string', context: EDIT },
      rendered: { description: 'HTML title for the post, transformed for display.', type: 'string', context: ALL, readonly: true }
    }, ALL),
    content: renderedObject('The content for the post.', {
      raw: { description: 'Content for the post, as it exists in the database.', type: 'string', context: EDIT },
      rendered: { description: 'HTML content for the post, transformed for display.', type: 'string', context: VE, readonly: true }
    }, VE),
    excerpt: renderedObject('The excerpt for the post.', {
      raw: { description: 'Excerpt for the post, as it exists in the database.', type: 'string', context: EDIT },
      rendered: { description: 'HTML excerpt for the post, transformed for display.', type: 'string', context: ALL, readonly: true }
    }, ALL),
    meta: { description: 'Meta fields.', type: 'object', context: VE, properties: metaSchema(meta) }
  }
  if (autosave) p.preview_link = { description: 'Preview link for the post.', type: 'string', format: 'uri', context: EDIT, readonly: true }
  return { $schema: 'http://json-schema.org/draft-04/schema#', title: `${spec.type}-revision`, type: 'object', properties: p }
}

const ORDERBY = ['author', 'date', 'id', 'include', 'modified', 'parent', 'relevance', 'slug', 'include_slugs', 'title'] as const

function termQueryArg (name: string, label: string, props: Record<string, JsonSchema>) {
  const object = { type: 'object', properties: props, additionalProperties: false }
  return Type.Optional(Raw<number[] | { terms?: number[], include_children?: boolean, operator?: 'AND' | 'OR' }>({
    description: `Limit result set to items with specific terms assigned in the ${label} taxonomy.`,
    type: ['array', 'object'],
    items: { type: 'integer' },
    properties: props,
    additionalProperties: false,
    oneOf: [
      { title: 'Term ID List', description: `Match terms with the listed IDs (${name}).`, type: 'array', items: { type: 'integer' } },
      { title: 'Term ID Taxonomy Query', description: 'Perform an advanced term query.', ...object }
    ]
  }))
}

const termsProp = { description: 'Term IDs.', type: 'array', items: { type: 'integer' }, default: [] }
const childrenProp = { description: 'Whether to include child terms in the terms limiting the result set.', type: 'boolean', default: false }
const operatorProp = { description: 'Whether items must be assigned all or any of the specified terms.', type: 'string', enum: ['AND', 'OR'], default: 'OR' }

/** Arguments of the collection (list) endpoint. */
export function listArgs (spec: PostType, schema: PostSchema) {
  const { context, page, per_page, search, offset, order, orderby } = collectionParams({
    schema,
    orderby: { enum: spec.hierarchical ? [...ORDERBY, 'menu_order'] : ORDERBY, default: 'date', description: 'Sort collection by post attribute.' }
  })
  return forType(spec, {
    context,
    page,
    per_page,
    search,
    after: Type.Optional(Type.String({ description: 'Limit response to posts published after a given ISO8601 compliant date.', format: 'date-time' })),
    modified_after: Type.Optional(Type.String({ description: 'Limit response to posts modified after a given ISO8601 compliant date.', format: 'date-time' })),
    author: IntList({ description: 'Limit result set to posts assigned to specific authors.', default: [] }),
    author_exclude: IntList({ description: 'Ensure result set excludes posts assigned to specific authors.', default: [] }),
    before: Type.Optional(Type.String({ description: 'Limit response to posts published before a given ISO8601 compliant date.', format: 'date-time' })),
    modified_before: Type.Optional(Type.String({ description: 'Limit response to posts modified before a given ISO8601 compliant date.', format: 'date-time' })),
    exclude: IntList({ description: 'Ensure result set excludes specific IDs.', default: [] }),
    include: IntList({ description: 'Limit result set to specific IDs.', default: [] }),
    menu_order: Type.Optional(Type.Integer({ description: 'Limit result set to posts with a specific menu_order value.' })),
    search_semantics: Type.Optional(Enum(['exact'], { description: 'How to interpret the search input.' })),
    offset,
    order,
    orderby,
    parent: IntList({ description: 'Limit result set to items with particular parent IDs.', default: [] }),
    parent_exclude: IntList({ description: 'Limit result set to all items except those of a particular parent ID.', default: [] }),
    search_columns: StringList({ description: 'Array of column names to be searched.', default: [] }, { enum: ['post_title', 'post_content', 'post_excerpt'] }),
    slug: Type.Optional(StringList({ description: 'Limit result set to posts with one or more specific slugs.' })),
    // The core declares the default as the single value, not a list; it is read as `['publish']`.
    status: StringList({ description: 'Limit result set to posts assigned one or more statuses.', default: 'publish' as unknown as string[] }, { enum: [...LIST_STATUSES] }),
    tax_relation: Type.Optional(Enum(['AND', 'OR'], { description: 'Limit result set based on relationship between multiple taxonomies.' })),
    categories: termQueryArg('categories', 'category', { terms: termsProp, include_children: childrenProp, operator: operatorProp }),
    categories_exclude: termQueryArg('categories_exclude', 'category', { terms: termsProp, include_children: childrenProp }),
    tags: termQueryArg('tags', 'post_tag', { terms: termsProp, operator: operatorProp }),
    tags_exclude: termQueryArg('tags_exclude', 'post_tag', { terms: termsProp }),
    sticky: Type.Optional(Type.Boolean({ description: 'Limit result set to items that are sticky.' })),
    ignore_sticky: Type.Boolean({ description: 'Whether to ignore sticky posts or not.', default: true }),
    format: Type.Optional(field({ description: 'Limit result set to items assigned one or more given formats.', type: 'array', uniqueItems: true, items: { type: 'string', enum: [...POST_FORMATS] } }))
  })
}

/** Arguments of the single-item GET. */
export function readArgs (schema: PostSchema) {
  return {
    context: contextParam(schema),
    excerpt_length: Type.Optional(Type.Integer({ description: 'Override the default excerpt length.' })),
    password: Type.Optional(Type.String({ description: 'The password for the post if it is password protected.' }))
  }
}

export function deleteArgs () {
  return { force: Type.Boolean({ description: 'Whether to bypass Trash and force deletion.', default: false }) }
}
