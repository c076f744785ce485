/**
 * Reads a core-CMS export file (WXR: RSS with the `wp:` namespace) as a
 * stream with saxes: records are handed out as the chunk that completes them
 * is parsed, and the next chunk is read only when they have been taken, so
 * memory holds one chunk and one item whatever the file's size.
 */
import { createReadStream } from 'node:fs'
import { SaxesParser } from 'saxes'
import type { SourceComment, SourcePost, SourceRecord, SourceTerm, SourceUser } from './model.js'

/** `2024-01-02 03:04:05` -> `2024-01-02T03:04:05`; empty for the zero date. */
function isoOf (value: string): string {
  const v = value.trim()
  if (v === '' || v.startsWith('0000-00-00')) return ''
  return v.replace(' ', 'T')
}

const COMMENT_STATUS: Record<string, SourceComment['status']> = { 1: 'approved', 0: 'hold', spam: 'spam', trash: 'trash' }

type Fields = Record<string, string>

/** What the parser is inside of: the record being built and its current child. */
interface State {
  item?: { fields: Fields, categories: string[], tags: string[], format: string, meta: Record<string, string>, comments: SourceComment[] }
  author?: Fields
  term?: { tag: string, fields: Fields }
  meta?: Fields
  comment?: Fields
  commentMeta?: Fields
  channel: Fields
  siteSent: boolean
}

const TERM_TAGS = new Set(['wp:category', 'wp:tag', 'wp:term'])

/** Reads `file`, handing out records; `onBytes` is told the bytes read so far. */
export async function * readWxr (file: string, onBytes?: (bytes: number) => void): AsyncGenerator<SourceRecord> {
  const parser = new SaxesParser({ xmlns: false })
  const out: SourceRecord[] = []
  const state: State = { channel: {}, siteSent: false }
  const stack: string[] = []
  let text = ''
  let category: { domain: string, nicename: string } | undefined

  const site = (): void => {
    if (state.siteSent) return
    state.siteSent = true
    const url = (state.channel['wp:base_blog_url'] ?? state.channel['wp:base_site_url'] ?? state.channel.link ?? '').trim().replace(/\/+$/, '')
    out.push({ kind: 'site', url })
  }

  parser.on('opentag', (tag) => {
    const name = tag.name
    stack.push(name)
    text = ''
    const parent = stack[stack.length - 2]
    if (name === 'item') {
      site()
      state.item = { fields: {}, categories: [], tags: [], format: '', meta: {}, comments: [] }
    } else if (name === 'wp:author' && parent === 'channel') {
      site()
      state.author = {}
    } else if (TERM_TAGS.has(name) && parent === 'channel') {
      site()
      state.term = { tag: name, fields: {} }
    } else if (name === 'wp:postmeta' && state.item !== undefined) {
      state.meta = {}
    } else if (name === 'wp:comment' && state.item !== undefined) {
      state.comment = {}
    } else if (name === 'wp:commentmeta' && state.comment !== undefined) {
      state.commentMeta = {}
    } else if (name === 'category' && state.item !== undefined) {
      category = { domain: String(tag.attributes.domain ?? ''), nicename: String(tag.attributes.nicename ?? '') }
    }
  })
  parser.on('text', (t) => { text += t })
  parser.on('cdata', (t) => { text += t })
  parser.on('closetag', (tag) => {
    const name = tag.name
    stack.pop()
    const value = text
    text = ''
    if (state.commentMeta !== undefined) {
      if (name === 'wp:commentmeta') state.commentMeta = undefined
      return
    }
    if (state.comment !== undefined) {
      if (name === 'wp:comment') {
        const c = state.comment
        state.comment = undefined
        const type = c['wp:comment_type'] ?? ''
        state.item?.comments.push({
          key: c['wp:comment_id'] ?? '',
          ...(c['wp:comment_parent'] !== undefined && c['wp:comment_parent'] !== '0' ? { parent: c['wp:comment_parent'] } : {}),
          authorName: c['wp:comment_author'] ?? '',
          authorEmail: c['wp:comment_author_email'] ?? '',
          authorUrl: c['wp:comment_author_url'] ?? '',
          authorIp: c['wp:comment_author_IP'] ?? '',
          dateGmt: isoOf(c['wp:comment_date_gmt'] ?? '') || isoOf(c['wp:comment_date'] ?? ''),
          content: c['wp:comment_content'] ?? '',
          status: COMMENT_STATUS[c['wp:comment_approved'] ?? '1'] ?? 'hold',
          type: type === '' ? 'comment' : type
        })
      } else {
        state.comment[name] = value
      }
      return
    }
    if (state.meta !== undefined) {
      if (name === 'wp:postmeta') {
        const key = state.meta['wp:meta_key']
        if (key !== undefined && key !== '' && state.item !== undefined) state.item.meta[key] = state.meta['wp:meta_value'] ?? ''
        state.meta = undefined
      } else {
        state.meta[name] = value
      }
      return
    }
    if (state.item !== undefined) {
      if (name === 'item') {
        const post = postOf(state.item)
        state.item = undefined
        if (post !== undefined) out.push(post)
      } else if (name === 'category' && category !== undefined) {
        if (category.domain === 'category') state.item.categories.push(category.nicename)
        else if (category.domain === 'post_tag') state.item.tags.push(category.nicename)
        else if (category.domain === 'post_format') state.item.format = category.nicename.replace(/^post-format-/, '')
        category = undefined
      } else if (stack[stack.length - 1] === 'item') {
        state.item.fields[name] = value
      }
      return
    }
    if (state.author !== undefined) {
      if (name === 'wp:author') {
        out.push(userOf(state.author))
        state.author = undefined
      } else {
        state.author[name] = value
      }
      return
    }
    if (state.term !== undefined) {
      if (name === state.term.tag) {
        const term = termOf(state.term.tag, state.term.fields)
        state.term = undefined
        if (term !== undefined) out.push(term)
      } else {
        state.term.fields[name] = value
      }
      return
    }
    if (stack[stack.length - 1] === 'channel') state.channel[name] = value
  })

  let failure: Error | undefined
  parser.on('error', (err) => { failure ??= err })
  const stream = createReadStream(file, { highWaterMark: 256 * 1024 })
  stream.setEncoding('utf8')
  let bytes = 0
  for await (const chunk of stream as AsyncIterable<string>) {
    bytes += Buffer.byteLength(chunk)
    parser.write(chunk)
    if (failure !== undefined) throw new Error(`${file}: not an export file (${failure.message.split('\n')[0]})`)
    onBytes?.(bytes)
    // Handed out before the next chunk is read: the file is read as fast as records are written.
    while (out.length > 0) yield out.shift()!
  }
  parser.close()
  if (failure !== undefined) throw new Error(`${file}: not an export file (${(failure as Error).message.split('\n')[0]})`)
  site()
  while (out.length > 0) yield out.shift()!
}

function userOf (f: Fields): SourceUser {
  return {
    kind: 'user',
    key: f['wp:author_login'] ?? '',
    login: f['wp:author_login'] ?? '',
    email: f['wp:author_email'] ?? '',
    displayName: f['wp:author_display_name'] ?? '',
    firstName: f['wp:author_first_name'] ?? '',
    lastName: f['wp:author_last_name'] ?? ''
  }
}

function termOf (tag: string, f: Fields): SourceTerm | undefined {
  if (tag === 'wp:category') {
    const parent = f['wp:category_parent'] ?? ''
    return { kind: 'category', key: f['wp:category_nicename'] ?? '', slug: f['wp:category_nicename'] ?? '', name: f['wp:cat_name'] ?? '', description: f['wp:category_description'] ?? '', ...(parent === '' ? {} : { parent }) }
  }
  if (tag === 'wp:tag') return { kind: 'post_tag', key: f['wp:tag_slug'] ?? '', slug: f['wp:tag_slug'] ?? '', name: f['wp:tag_name'] ?? '', description: f['wp:tag_description'] ?? '' }
  // wp:term: other taxonomies (menus, formats...) are not carried.
  const taxonomy = f['wp:term_taxonomy']
  if (taxonomy !== 'category' && taxonomy !== 'post_tag') return undefined
  const parent = f['wp:term_parent'] ?? ''
  return { kind: taxonomy, key: f['wp:term_slug'] ?? '', slug: f['wp:term_slug'] ?? '', name: f['wp:term_name'] ?? '', description: f['wp:term_description'] ?? '', ...(parent === '' ? {} : { parent }) }
}

function postOf (item: NonNullable<State['item']>): SourcePost | undefined {
  const f = item.fields
  const type = f['wp:post_type'] ?? 'post'
  const parent = f['wp:post_parent'] ?? '0'
  const post: SourcePost = {
    kind: 'post',
    key: f['wp:post_id'] ?? '',
    type,
    title: f.title ?? '',
    content: f['content:encoded'] ?? '',
    excerpt: f['excerpt:encoded'] ?? '',
    status: f['wp:status'] ?? 'draft',
    date: isoOf(f['wp:post_date'] ?? ''),
    slug: f['wp:post_name'] ?? '',
    menuOrder: Number(f['wp:menu_order'] ?? 0) || 0,
    password: f['wp:post_password'] ?? '',
    sticky: f['wp:is_sticky'] === '1',
    format: item.format,
    commentStatus: f['wp:comment_status'] ?? 'open',
    pingStatus: f['wp:ping_status'] ?? 'open',
    categories: item.categories,
    tags: item.tags,
    meta: item.meta,
    comments: item.comments
  }
  const gmt = isoOf(f['wp:post_date_gmt'] ?? '')
  if (gmt !== '') post.dateGmt = gmt
  if (parent !== '0' && parent !== '') post.parent = parent
  if (f['dc:creator'] !== undefined && f['dc:creator'] !== '') post.author = f['dc:creator']
  if (f.link !== undefined && f.link !== '') post.link = f.link
  if (f['wp:attachment_url'] !== undefined && f['wp:attachment_url'] !== '') post.fileUrl = f['wp:attachment_url']
  return post.key === '' ? undefined : post
}
