/**
 * The item schemas (posts, pages, revisions, autosaves) and the argument
 * declarations of their routes. The schemas' `context` lists decide which
 * fields each context shows.
 */
import { Type, type TSchema } from '@sinclair/typebox'
import { ContextArg, Enum, IntList, Raw, StringList, unvalidated, type JsonSchema } from '@cms/rest'
import { metaSchema, type MetaRegistry } from './meta.js'
import { LIST_STATUSES, POST_FORMATS, WRITE_STATUSES, type PostType } from './post-types.js'

const ALL = ['view', 'edit', 'embed']
const VE = ['view', 'edit']
const EDIT = ['edit']


function renderedObject (description: string, props: Record<string, JsonSchema>, context: string[]): JsonSchema {
  return { description, type: 'object', context, properties: props }
}

/** The JSON schema of a post or page. */
export function postItemSchema (spec: PostType, meta: MetaRegistry): JsonSchema {
  const p: Record<string, JsonSchema> = {
    date: { description: "The date the post was published, in the site's timezone.", type: ['string', 'null'], format: 'date-time', context: ALL },
    date_gmt: { description: 'The date the post was published, as GMT.', type: ['string', 'null'], format: 'date-time', context: VE },
    guid: renderedObject('The globally unique identifier for the post.', {
      raw: { description: 'GUID for the post, as it exists in the database.', type: 'string', context: EDIT, readonly: true },
      rendered: { description: 'GUID for the post, transformed for display.', type: 'string', context: VE, readonly: true }
    }, VE),
    id: { description: 'Unique identifier for the post.', type: 'integer', context: ALL, readonly: true },
    link: { description: 'URL to the post.', type: 'string', format: 'uri', context: ALL, readonly: true },
    modified: { description: "The date the post was last modified, in the site's timezone.", type: 'string', format: 'date-time', context: VE, readonly: true },
    modified_gmt: { description: 'The date the post was last modified, as GMT.', type: 'string', format: 'date-time', context: VE, readonly: true },
    slug: { description: 'An alphanumeric identifier for the post unique to its type.', type: 'string', context: ALL },
    status: { description: 'A named status for the post.', type: 'string', enum: [...WRITE_STATUSES], context: VE },
    type: { description: 'Type of post.', type: 'string', context: ALL, readonly: true },
    password: { description: 'A password to protect access to the content and excerpt.', type: 'string', context: EDIT },
    permalink_template: { description: 'Permalink template for the post.', type: 'string', context: EDIT, readonly: true },
    generated_slug: { description: 'Slug automatically generated from the post title.', type: 'string', context: EDIT, readonly: true },
    class_list: { description: 'An array of the class names for the post container element.', type: 'array', items: { type: 'string' }, context: VE, readonly: true }
  }
  if (spec.hierarchical) p.parent = { description: 'The ID for the parent of the post.', type: 'integer', context: VE }
  p.title = renderedObject('The title for the post.', {
    raw: { description: 'Title for the post, as it exists in the database.', type: 'string', context: EDIT },
    rendered: { description: 'HTML title for the post, transformed for display.', type: 'string', context: ALL, readonly: true }
  }, ALL)
  p.content = renderedObject('The content for the post.', {
    raw: { description: 'Content for the post, as it exists in the database.', type: 'string', context: EDIT },
    rendered: { description: 'HTML content for the post, transformed for display.', type: 'string', context: VE, readonly: true },
    block_version: { description: 'Version of the content block format used by the post.', type: 'integer', context: EDIT, readonly: true },
    protected: { description: 'Whether the content is protected with a password.', type: 'boolean', context: ALL, readonly: true }
  }, VE)
  p.author = { description: 'The ID for the author of the post.', type: 'integer', context: ALL }
  p.excerpt = renderedObject('The excerpt for the post.', {
    raw: { description: 'Excerpt for the post, as it exists in the database.', type: 'string', context: EDIT },
    rendered: { description: 'HTML excerpt for the post, transformed for display.', type: 'string', context: ALL, readonly: true },
    protected: { description: 'Whether the excerpt is protected with a password.', type: 'boolean', context: ALL, readonly: true }
  }, ALL)
  p.featured_media = { description: 'The ID of the featured media for the post.', type: 'integer', context: ALL }
  p.comment_status = { description: 'Whether or not comments are open on the post.', type: 'string', enum: ['open', 'closed'], context: VE }
  p.ping_status = { description: 'Whether or not the post can be pinged.', type: 'string', enum: ['open', 'closed'], context: VE }
  if (spec.hierarchical) p.menu_order = { description: 'The order of the post in relation to other posts.', type: 'integer', context: VE }
  if (spec.hasTerms) p.format = { description: 'The format for the post.', type: 'string', enum: [...POST_FORMATS], context: VE }
  p.meta = { description: 'Meta fields.', type: 'object', context: VE, properties: metaSchema(meta) }
  if (spec.hasTerms) p.sticky = { description: 'Whether or not the post should be treated as sticky.', type: 'boolean', context: VE }
  p.template = { description: 'The theme file to use to display the post.', type: 'string', context: VE }
  if (spec.hasTerms) {
    p.categories = { description: 'The terms assigned to the post in the category taxonomy.', type: 'array', items: { type: 'integer' }, context: VE }
    p.tags = { description: 'The terms assigned to the post in the post_tag taxonomy.', type: 'array', items: { type: 'integer' }, context: VE }
  }
  return { $schema: 'http://json-schema.org/draft-04/schema#', title: spec.type, type: 'object', properties: p }
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

const rendered = (raw: string): TSchema => unvalidated(Type.Optional(Raw({ type: 'object',
  description: raw,
  properties: {
    raw: { description: 'As it exists in the database.', type: 'string', context: EDIT },
    rendered: { description: 'Transformed for display.', type: 'string', context: ALL, readonly: true }
  }
})))

/** Arguments of create and update: the writable fields. */
export function writeArgs (spec: PostType, meta: MetaRegistry): Record<string, TSchema> {
  const args: Record<string, TSchema> = {
    date: Type.Optional(Raw({ description: "The date the post was published, in the site's timezone.", type: ['string', 'null'], format: 'date-time' })),
    date_gmt: Type.Optional(Raw({ description: 'The date the post was published, as GMT.', type: ['string', 'null'], format: 'date-time' })),
    slug: Type.Optional(Type.String({ description: 'An alphanumeric identifier for the post unique to its type.' })),
    status: Type.Optional(Enum(WRITE_STATUSES, { description: 'A named status for the post.' })),
    password: Type.Optional(Type.String({ description: 'A password to protect access to the content and excerpt.' })),
    title: rendered('The title for the post.'),
    content: unvalidated(Type.Optional(Raw({ type: 'object',
      description: 'The content for the post.',
      properties: {
        raw: { description: 'Content for the post, as it exists in the database.', type: 'string', context: EDIT },
        rendered: { description: 'HTML content for the post, transformed for display.', type: 'string', context: VE, readonly: true },
        block_version: { description: 'Version of the content block format used by the post.', type: 'integer', context: EDIT, readonly: true },
        protected: { description: 'Whether the content is protected with a password.', type: 'boolean', context: ALL, readonly: true }
      }
    }))),
    excerpt: unvalidated(Type.Optional(Raw({ type: 'object',
      description: 'The excerpt for the post.',
      properties: {
        raw: { description: 'Excerpt for the post, as it exists in the database.', type: 'string', context: EDIT },
        rendered: { description: 'HTML excerpt for the post, transformed for display.', type: 'string', context: ALL, readonly: true },
        protected: { description: 'Whether the excerpt is protected with a password.', type: 'boolean', context: ALL, readonly: true }
      }
    }))),
    author: Type.Optional(Type.Integer({ description: 'The ID for the author of the post.' })),
    featured_media: Type.Optional(Type.Integer({ description: 'The ID of the featured media for the post.' })),
    comment_status: Type.Optional(Enum(['open', 'closed'], { description: 'Whether or not comments are open on the post.' })),
    ping_status: Type.Optional(Enum(['open', 'closed'], { description: 'Whether or not the post can be pinged.' })),
    meta: unvalidated(Type.Optional(Raw({ type: 'object', description: 'Meta fields.', properties: metaSchema(meta) }))),
    template: Type.Optional(Type.String({ description: 'The theme file to use to display the post.' }))
  }
  if (spec.hasTerms) {
    args.format = Type.Optional(Enum(POST_FORMATS, { description: 'The format for the post.' }))
    args.sticky = Type.Optional(Type.Boolean({ description: 'Whether or not the post should be treated as sticky.' }))
    args.categories = Type.Optional(IntList({ description: 'The terms assigned to the post in the category taxonomy.' }))
    args.tags = Type.Optional(IntList({ description: 'The terms assigned to the post in the post_tag taxonomy.' }))
  }
  if (spec.hierarchical) {
    args.parent = Type.Optional(Type.Integer({ description: 'The ID for the parent of the post.' }))
    args.menu_order = Type.Optional(Type.Integer({ description: 'The order of the post in relation to other posts.' }))
  }
  return args
}

const ORDERBY = ['author', 'date', 'id', 'include', 'modified', 'parent', 'relevance', 'slug', 'include_slugs', 'title'] as const

function termQueryArg (name: string, label: string, props: Record<string, JsonSchema>): TSchema {
  const object = { type: 'object', properties: props, additionalProperties: false }
  return Type.Optional(Raw({
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
export function listArgs (spec: PostType): Record<string, TSchema> {
  const args: Record<string, TSchema> = {
    context: ContextArg(),
    page: Type.Integer({ description: 'Current page of the collection.', default: 1, minimum: 1 }),
    per_page: Type.Integer({ description: 'Maximum number of items to be returned in result set.', default: 10, minimum: 1, maximum: 100 }),
    search: Type.Optional(Type.String({ description: 'Limit results to those matching a string.' })),
    after: Type.Optional(Type.String({ description: 'Limit response to posts published after a given ISO8601 compliant date.', format: 'date-time' })),
    modified_after: Type.Optional(Type.String({ description: 'Limit response to posts modified after a given ISO8601 compliant date.', format: 'date-time' })),
    author: IntList({ description: 'Limit result set to posts assigned to specific authors.', default: [] }),
    author_exclude: IntList({ description: 'Ensure result set excludes posts assigned to specific authors.', default: [] }),
    before: Type.Optional(Type.String({ description: 'Limit response to posts published before a given ISO8601 compliant date.', format: 'date-time' })),
    modified_before: Type.Optional(Type.String({ description: 'Limit response to posts modified before a given ISO8601 compliant date.', format: 'date-time' })),
    exclude: IntList({ description: 'Ensure result set excludes specific IDs.', default: [] }),
    include: IntList({ description: 'Limit result set to specific IDs.', default: [] })
  }
  if (spec.hierarchical) args.menu_order = Type.Optional(Type.Integer({ description: 'Limit result set to posts with a specific menu_order value.' }))
  args.search_semantics = Type.Optional(Enum(['exact'], { description: 'How to interpret the search input.' }))
  args.offset = Type.Optional(Type.Integer({ description: 'Offset the result set by a specific number of items.' }))
  args.order = Enum(['asc', 'desc'], { description: 'Order sort attribute ascending or descending.', default: 'desc' })
  args.orderby = Enum(spec.hierarchical ? [...ORDERBY, 'menu_order'] : ORDERBY, { description: 'Sort collection by post attribute.', default: 'date' })
  if (spec.hierarchical) {
    args.parent = IntList({ description: 'Limit result set to items with particular parent IDs.', default: [] })
    args.parent_exclude = IntList({ description: 'Limit result set to all items except those of a particular parent ID.', default: [] })
  }
  args.search_columns = StringList({ description: 'Array of column names to be searched.', default: [] }, { enum: ['post_title', 'post_content', 'post_excerpt'] })
  args.slug = Type.Optional(StringList({ description: 'Limit result set to posts with one or more specific slugs.' }))
  args.status = StringList({ description: 'Limit result set to posts assigned one or more statuses.', default: 'publish' as unknown as string[] }, { enum: [...LIST_STATUSES] })
  if (spec.hasTerms) {
    args.tax_relation = Type.Optional(Enum(['AND', 'OR'], { description: 'Limit result set based on relationship between multiple taxonomies.' }))
    args.categories = termQueryArg('categories', 'category', { terms: termsProp, include_children: childrenProp, operator: operatorProp })
    args.categories_exclude = termQueryArg('categories_exclude', 'category', { terms: termsProp, include_children: childrenProp })
    args.tags = termQueryArg('tags', 'post_tag', { terms: termsProp, operator: operatorProp })
    args.tags_exclude = termQueryArg('tags_exclude', 'post_tag', { terms: termsProp })
    args.sticky = Type.Optional(Type.Boolean({ description: 'Limit result set to items that are sticky.' }))
    args.ignore_sticky = Type.Boolean({ description: 'Whether to ignore sticky posts or not.', default: true })
    args.format = Type.Optional(Raw({ description: 'Limit result set to items assigned one or more given formats.', type: 'array', uniqueItems: true, items: { type: 'string', enum: [...POST_FORMATS] } }))
  }
  return args
}

/** Arguments of the single-item GET. */
export function readArgs (): Record<string, TSchema> {
  return {
    context: ContextArg(),
    excerpt_length: Type.Optional(Type.Integer({ description: 'Override the default excerpt length.' })),
    password: Type.Optional(Type.String({ description: 'The password for the post if it is password protected.' }))
  }
}

export function deleteArgs (): Record<string, TSchema> {
  return { force: Type.Boolean({ description: 'Whether to bypass Trash and force deletion.', default: false }) }
}
