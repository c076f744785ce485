/**
 * What a source (an export file, a live site's REST API) is read into: one
 * shape for both, so the writer knows no source. References between records
 * are source keys (a post's parent, a term's parent, a post's terms), turned
 * into ids here by the id map (map.ts).
 */
import { createHash } from 'node:crypto'

/** The site the records come from (first, before any record). */
export interface SourceSite {
  kind: 'site'
  /** Its base URL (the id map is kept per source site). */
  url: string
}

export interface SourceUser {
  kind: 'user'
  /** An export file links authors by login, the REST API by id. */
  key: string
  login: string
  email: string
  displayName: string
  firstName: string
  lastName: string
  /** Roles when the source names them (the REST API, with the right to list them). */
  roles?: string[]
}

export interface SourceTerm {
  kind: 'category' | 'post_tag'
  key: string
  slug: string
  name: string
  description: string
  /** The parent's key (categories). */
  parent?: string
}

export interface SourceComment {
  key: string
  parent?: string
  authorName: string
  authorEmail: string
  authorUrl: string
  authorIp: string
  /** `YYYY-MM-DDTHH:MM:SS`, GMT. */
  dateGmt: string
  content: string
  status: 'approved' | 'hold' | 'spam' | 'trash'
  /** `comment` (pingbacks and trackbacks are left out). */
  type: string
}

export interface SourcePost {
  kind: 'post'
  key: string
  /** post, page or attachment. */
  type: string
  title: string
  content: string
  excerpt: string
  status: string
  /** Site-local date (`YYYY-MM-DDTHH:MM:SS`). */
  date: string
  /** GMT date, when the source has one (a draft's may be missing). */
  dateGmt?: string
  slug: string
  parent?: string
  menuOrder: number
  password: string
  sticky: boolean
  format: string
  commentStatus: string
  pingStatus: string
  /** The author's key. */
  author?: string
  categories: string[]
  tags: string[]
  /** Every post meta value as the source gives it (an export file: strings, as serialised there). */
  meta: Record<string, unknown>
  /** Its address at the source (for links in content). */
  link?: string
  /** An attachment's file. */
  fileUrl?: string
  comments: SourceComment[]
}

/** A comment read on its own (the REST API lists them apart from their posts). */
export interface SourceCommentRecord extends SourceComment {
  kind: 'comment'
  /** Its post's key. */
  post: string
}

export type SourceRecord = SourceSite | SourceUser | SourceTerm | SourcePost | SourceCommentRecord

/** A checksum of what the source said (a post's without its comments: they have their own). */
export function checksumOf (record: object): string {
  return createHash('sha256').update(JSON.stringify(record)).digest('hex').slice(0, 32)
}
