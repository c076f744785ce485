/**
 * The examples of the content routes in the OpenAPI document
 * (`EndpointDecl.example`): a post, a page, a category and a tag created,
 * listed, read, updated and removed, as a fresh site at
 * https://cms.example.com answers them (`_links` shortened, the packages'
 * meta keys left out). The gateway's completeness test checks each request
 * with the kernel's validation of the route's arguments and each answer
 * against the documented schema.
 */
import type { EndpointExample } from '@cms/rest'

const SITE = 'https://cms.example.com'
const API = `${SITE}/index.php?rest_route=`
const TIME = '2026-11-28T09:30:00'

function slugOf (title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')
}

/** What differs between a post and a page in the examples. */
interface Sample {
  base: string
  id: number
  link: string
  title: string
  content: string
  /** The type's own fields, in the answer's order after `featured_media`. */
  own: Record<string, unknown>
  classes: string[]
}

const SAMPLES: Record<'post' | 'page', Sample> = {
  post: {
    base: 'posts',
    id: 1,
    link: `${SITE}/?p=1`,
    title: 'Hello world',
    content: '<p>My first post.</p>',
    own: { comment_status: 'open', ping_status: 'open', sticky: false, template: '', format: 'standard', meta: { footnotes: '' }, categories: [2], tags: [3] },
    classes: ['post-1', 'post', 'type-post', 'status-publish', 'format-standard', 'hentry', 'category-news', 'tag-release']
  },
  page: {
    base: 'pages',
    id: 4,
    link: `${SITE}/?page_id=4`,
    title: 'About',
    content: '<p>Who we are.</p>',
    own: { parent: 0, menu_order: 0, comment_status: 'closed', ping_status: 'closed', template: '', meta: { footnotes: '' } },
    classes: ['post-4', 'page', 'type-page', 'status-publish', 'hentry']
  }
}

/** The item as answered: `view` context to anyone, `edit` context (raw values too) to its editor after a write. */
function item (type: 'post' | 'page', edit: boolean, change: { title?: string, status?: string, slug?: string } = {}): Record<string, unknown> {
  const s = SAMPLES[type]
  const title = change.title ?? s.title
  const slug = change.slug ?? slugOf(title)
  const rendered = `${s.content}\n`
  const self = `${API}/cms/v2/${s.base}/${s.id}`
  return {
    id: s.id,
    date: TIME,
    date_gmt: TIME,
    guid: edit ? { rendered: s.link, raw: s.link } : { rendered: s.link },
    modified: TIME,
    modified_gmt: TIME,
    ...(edit ? { password: '' } : {}),
    slug,
    status: change.status ?? 'publish',
    type,
    link: s.link,
    title: edit ? { raw: title, rendered: title } : { rendered: title },
    content: edit ? { raw: s.content, rendered, protected: false, block_version: 0 } : { rendered, protected: false },
    excerpt: edit ? { raw: '', rendered, protected: false } : { rendered, protected: false },
    author: 1,
    featured_media: 0,
    ...s.own,
    ...(edit ? { permalink_template: s.link, generated_slug: slug } : {}),
    class_list: change.status === undefined ? s.classes : s.classes.map((c) => c.startsWith('status-') ? `status-${change.status ?? ''}` : c),
    _links: {
      self: [{ href: self, targetHints: { allow: edit ? ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] : ['GET'] } }],
      collection: [{ href: `${API}/cms/v2/${s.base}` }],
      author: [{ embeddable: true, href: `${API}/cms/v2/users/1` }]
    }
  }
}

/** The examples of the five endpoints of `/posts` or `/pages` and their items. */
export function collectionExamples (type: 'post' | 'page'): Five {
  const s = SAMPLES[type]
  const created = type === 'post'
    ? { title: s.title, content: s.content, status: 'publish', categories: [2], tags: [3] }
    : { title: s.title, content: s.content, status: 'publish' }
  return {
    list: { request: { per_page: 5, search: s.title.split(' ')[0], orderby: 'date', order: 'desc' }, response: [item(type, false)] },
    create: { request: created, response: item(type, true) },
    read: { request: { id: s.id }, response: item(type, false) },
    update: { request: { id: s.id, title: `${s.title}, again` }, response: item(type, true, { title: `${s.title}, again`, slug: slugOf(s.title) }) },
    // Without `force`, the item goes to the trash and is answered as it now is.
    remove: { request: { id: s.id }, response: item(type, true, { status: 'trash', slug: `${slugOf(s.title)}__trashed` }) }
  }
}

type Five = Record<'list' | 'create' | 'read' | 'update' | 'remove', EndpointExample>

/** The examples of `/categories` or `/tags` and their items. */
export function termExamples (base: 'categories' | 'tags'): Five {
  const category = base === 'categories'
  const id = category ? 2 : 3
  const [name, description] = category ? ['News', 'Announcements'] : ['Release', 'Posts about a release']
  const term = (change: { description?: string } = {}): Record<string, unknown> => ({
    id,
    count: 0,
    description: change.description ?? description,
    link: category ? `${SITE}/?cat=${id}` : `${SITE}/?tag=${slugOf(name)}`,
    name,
    slug: slugOf(name),
    taxonomy: category ? 'category' : 'post_tag',
    ...(category ? { parent: 0 } : {}),
    meta: [],
    _links: {
      self: [{ href: `${API}/cms/v2/${base}/${id}` }],
      collection: [{ href: `${API}/cms/v2/${base}` }]
    }
  })
  return {
    list: { request: { per_page: 10, search: name.toLowerCase(), orderby: 'name', order: 'asc' }, response: [term()] },
    create: { request: { name, description, ...(category ? { parent: 0 } : {}) }, response: term() },
    read: { request: { id }, response: term() },
    update: { request: { id, description: `${description}, week by week` }, response: term({ description: `${description}, week by week` }) },
    // Terms have no trash: `force=true` is required, and the term is answered as it was.
    remove: { request: { id, force: true }, response: { deleted: true, previous: term() } }
  }
}
