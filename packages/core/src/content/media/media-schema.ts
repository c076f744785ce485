/**
 * The attachment's item schema and the arguments of the media routes: the
 * post schema's shared fields (dates, slug, status, title, author, meta...)
 * plus what a file adds, as the core's media controller declares them.
 */
import { Type, type TSchema } from '@sinclair/typebox'
import { argsFromSchema, Enum, IntList, Raw, StringList, unvalidated, type JsonSchema } from '@cms/rest'
import { ATTACHMENT_TYPE, listArgs, postItemSchema, type MetaRegistry } from '../index.js'

const ALL = ['view', 'edit', 'embed']
const VE = ['view', 'edit']
const EDIT = ['edit']

export const MEDIA_STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'inherit'] as const
export const MEDIA_TYPES = ['image', 'video', 'text', 'application', 'audio'] as const

/** The JSON schema of an attachment. */
export function mediaItemSchema (meta: MetaRegistry): JsonSchema {
  const base = postItemSchema(ATTACHMENT_TYPE, meta) as { properties: Record<string, JsonSchema> }
  const p: Record<string, JsonSchema> = {}
  for (const [name, schema] of Object.entries(base.properties)) {
    // Attachments have no content, excerpt, password or featured image of their own.
    if (['content', 'excerpt', 'password', 'featured_media'].includes(name)) continue
    p[name] = name === 'status' ? { ...schema, enum: [...MEDIA_STATUSES] } : schema
  }
  p.alt_text = { description: 'Alternative text to display when attachment is not displayed.', type: 'string', context: ALL }
  p.caption = {
    description: 'The attachment caption.',
    type: 'object',
    context: ALL,
    properties: {
      raw: { description: 'Caption for the attachment, as it exists in the database.', type: 'string', context: EDIT },
      rendered: { description: 'HTML caption for the attachment, transformed for display.', type: 'string', context: ALL, readonly: true }
    }
  }
  p.description = {
    description: 'The attachment description.',
    type: 'object',
    context: VE,
    properties: {
      raw: { description: 'Description for the attachment, as it exists in the database.', type: 'string', context: EDIT },
      rendered: { description: 'HTML description for the attachment, transformed for display.', type: 'string', context: VE, readonly: true }
    }
  }
  p.media_type = { description: 'Attachment type.', type: 'string', enum: ['image', 'file'], context: ALL, readonly: true }
  p.mime_type = { description: 'The attachment MIME type.', type: 'string', context: ALL, readonly: true }
  p.media_details = { description: 'Details about the media file, specific to its type.', type: 'object', context: ALL, readonly: true }
  p.post = { description: 'The ID for the associated post of the attachment.', type: ['integer', 'null'], context: VE }
  p.source_url = { description: 'URL to the original attachment file.', type: 'string', format: 'uri', context: ALL, readonly: true }
  p.missing_image_sizes = { description: 'List of the missing image sizes of the attachment.', type: 'array', items: { type: 'string' }, context: EDIT, readonly: true }
  return { $schema: 'http://json-schema.org/draft-04/schema#', title: 'attachment', type: 'object', properties: p }
}

const textObject = (description: string): TSchema => unvalidated(Type.Optional(Raw({
  type: ['string', 'object'],
  description,
  properties: {
    raw: { description: 'As it exists in the database.', type: 'string', context: EDIT },
    rendered: { description: 'Transformed for display.', type: 'string', context: ALL, readonly: true }
  }
})))

/** Arguments of upload and update: the writable fields. */
export function mediaWriteArgs (meta: MetaRegistry): Record<string, TSchema> {
  const post = argsFromSchema(postItemSchema(ATTACHMENT_TYPE, meta), 'create') as Record<string, TSchema>
  const args: Record<string, TSchema> = {}
  for (const name of ['date', 'date_gmt', 'slug', 'status', 'title', 'author', 'comment_status', 'ping_status', 'meta', 'template']) {
    args[name] = name === 'status' ? Type.Optional(Enum(MEDIA_STATUSES, { description: 'A named status for the post.' })) : post[name]!
  }
  args.alt_text = Type.Optional(Type.String({ description: 'Alternative text to display when attachment is not displayed.' }))
  args.caption = textObject('The attachment caption.')
  args.description = textObject('The attachment description.')
  args.post = Type.Optional(Type.Integer({ description: 'The ID for the associated post of the attachment.' }))
  return args
}

/** Arguments of the list: the post list's that apply, with parents, statuses and types of files. */
export function mediaListArgs (meta: MetaRegistry): Record<string, TSchema> {
  const args: Record<string, TSchema> = listArgs(ATTACHMENT_TYPE, postItemSchema(ATTACHMENT_TYPE, meta))
  args.parent = IntList({ description: 'Limit result set to items with particular parent IDs.', default: [] })
  args.parent_exclude = IntList({ description: 'Limit result set to all items except those of a particular parent ID.', default: [] })
  args.status = StringList({ description: 'Limit result set to posts assigned one or more statuses.', default: 'inherit' as unknown as string[] },
    { enum: ['inherit', 'private', 'trash'] })
  args.media_type = Type.Optional(Enum(MEDIA_TYPES, { description: 'Limit result set to attachments of a particular media type.' }))
  args.mime_type = Type.Optional(Type.String({ description: 'Limit result set to attachments of a particular MIME type.' }))
  return args
}
