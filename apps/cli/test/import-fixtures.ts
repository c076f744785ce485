// A core-CMS export file (WXR) with every feature the importer carries,
// written by the test (nothing copied from elsewhere), and a local HTTP
// server for its attachment files.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { crc32 } from 'node:zlib'

/** A 1x1 PNG (as media.test.ts has it). */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

/** The PNG with its header (IHDR, CRC fixed) declaring 16000 x 16000 pixels: its data cannot fill it. */
export const BOMB = (() => {
  const file = Buffer.from(PNG)
  file.writeUInt32BE(16000, 16)
  file.writeUInt32BE(16000, 20)
  file.writeUInt32BE(crc32(file.subarray(12, 29)), 29)
  return file
})()

/** Files by path under /wp-content/uploads/2020/01/: the photo, a declared-huge image, 64 KB of text. */
const FILES: Record<string, [type: string, body: Buffer]> = {
  'photo.png': ['image/png', PNG],
  'bomb.png': ['image/png', BOMB],
  'big.txt': ['text/plain', Buffer.alloc(64 * 1024, 'a')]
}

/** `onServe` is told each file's name as it is served (a test interrupts an import there). */
export async function fileServer (onServe?: (name: string) => void): Promise<{ url: string, hits: () => number, close: () => Promise<void> }> {
  let hits = 0
  const server: Server = createServer((req, res) => {
    hits++
    const name = /^\/wp-content\/uploads\/2020\/01\/([^/]+)$/.exec(req.url ?? '')?.[1]
    const file = name === undefined ? undefined : FILES[name]
    if (name === undefined || file === undefined) {
      res.writeHead(404).end()
      return
    }
    onServe?.(name)
    res.writeHead(200, { 'content-type': file[0] }).end(file[1])
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits, close: async () => { await new Promise((resolve) => server.close(resolve)) } }
}

const cdata = (s: string): string => `<![CDATA[${s.replace(/\]\]>/g, ']]]]><![CDATA[>')}]]>`

export interface ItemSpec {
  id: number
  type?: string
  title: string
  link?: string
  content?: string
  excerpt?: string
  status?: string
  date?: string
  dateGmt?: string
  slug?: string
  parent?: number
  menuOrder?: number
  password?: string
  sticky?: boolean
  creator?: string
  categories?: Array<[domain: string, nicename: string, name: string]>
  meta?: Record<string, string>
  attachmentUrl?: string
  commentStatus?: string
  comments?: Array<{ id: number, parent?: number, author: string, email: string, content: string, approved?: string, date: string }>
}

export function itemXml (site: string, i: ItemSpec): string {
  const slug = i.slug ?? `item-${i.id}`
  return `<item>
<title>${cdata(i.title)}</title>
<link>${i.link ?? `${site}/${slug}/`}</link>
<dc:creator>${cdata(i.creator ?? 'alice')}</dc:creator>
<guid isPermaLink="false">${site}/?p=${i.id}</guid>
<content:encoded>${cdata(i.content ?? '')}</content:encoded>
<excerpt:encoded>${cdata(i.excerpt ?? '')}</excerpt:encoded>
<wp:post_id>${i.id}</wp:post_id>
<wp:post_date>${cdata(i.date ?? '2020-01-02 10:00:00')}</wp:post_date>
<wp:post_date_gmt>${cdata(i.dateGmt ?? i.date ?? '2020-01-02 10:00:00')}</wp:post_date_gmt>
<wp:comment_status>${cdata(i.commentStatus ?? 'open')}</wp:comment_status>
<wp:ping_status>${cdata('closed')}</wp:ping_status>
<wp:post_name>${cdata(slug)}</wp:post_name>
<wp:status>${cdata(i.status ?? 'publish')}</wp:status>
<wp:post_parent>${i.parent ?? 0}</wp:post_parent>
<wp:menu_order>${i.menuOrder ?? 0}</wp:menu_order>
<wp:post_type>${cdata(i.type ?? 'post')}</wp:post_type>
<wp:post_password>${cdata(i.password ?? '')}</wp:post_password>
<wp:is_sticky>${i.sticky === true ? 1 : 0}</wp:is_sticky>
${i.attachmentUrl === undefined ? '' : `<wp:attachment_url>${cdata(i.attachmentUrl)}</wp:attachment_url>`}
${(i.categories ?? []).map(([d, n, name]) => `<category domain="${d}" nicename="${n}">${cdata(name)}</category>`).join('\n')}
${Object.entries(i.meta ?? {}).map(([k, v]) => `<wp:postmeta><wp:meta_key>${cdata(k)}</wp:meta_key><wp:meta_value>${cdata(v)}</wp:meta_value></wp:postmeta>`).join('\n')}
${(i.comments ?? []).map((c) => `<wp:comment>
<wp:comment_id>${c.id}</wp:comment_id>
<wp:comment_author>${cdata(c.author)}</wp:comment_author>
<wp:comment_author_email>${cdata(c.email)}</wp:comment_author_email>
<wp:comment_author_url>http://commenter.example/</wp:comment_author_url>
<wp:comment_author_IP>${cdata('192.0.2.7')}</wp:comment_author_IP>
<wp:comment_date>${cdata(c.date)}</wp:comment_date>
<wp:comment_date_gmt>${cdata(c.date)}</wp:comment_date_gmt>
<wp:comment_content>${cdata(c.content)}</wp:comment_content>
<wp:comment_approved>${cdata(c.approved ?? '1')}</wp:comment_approved>
<wp:comment_type>${cdata('comment')}</wp:comment_type>
<wp:comment_parent>${c.parent ?? 0}</wp:comment_parent>
<wp:comment_user_id>0</wp:comment_user_id>
<wp:commentmeta><wp:meta_key>${cdata('rating')}</wp:meta_key><wp:meta_value>${cdata('5')}</wp:meta_value></wp:commentmeta>
</wp:comment>`).join('\n')}
</item>
`
}

export const SITE = 'http://old.example'

export function head (site = SITE): string {
  return `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wfw="http://wellformedweb.org/CommentAPI/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel>
<title>Old site</title>
<link>${site}</link>
<wp:wxr_version>1.2</wp:wxr_version>
<wp:base_site_url>${site}</wp:base_site_url>
<wp:base_blog_url>${site}</wp:base_blog_url>
<wp:author><wp:author_id>1</wp:author_id><wp:author_login>${cdata('alice')}</wp:author_login><wp:author_email>${cdata('alice@old.example')}</wp:author_email><wp:author_display_name>${cdata('Alice Åberg')}</wp:author_display_name><wp:author_first_name>${cdata('Alice')}</wp:author_first_name><wp:author_last_name>${cdata('Åberg')}</wp:author_last_name></wp:author>
<wp:author><wp:author_id>2</wp:author_id><wp:author_login>${cdata('zoe')}</wp:author_login><wp:author_email>${cdata('zoe@old.example')}</wp:author_email><wp:author_display_name>${cdata('Zoë Ångström')}</wp:author_display_name><wp:author_first_name>${cdata('Zoë')}</wp:author_first_name><wp:author_last_name>${cdata('Ångström')}</wp:author_last_name></wp:author>
<wp:category><wp:term_id>2</wp:term_id><wp:category_nicename>${cdata('news')}</wp:category_nicename><wp:category_parent>${cdata('')}</wp:category_parent><wp:cat_name>${cdata('News')}</wp:cat_name><wp:category_description>${cdata('All the news')}</wp:category_description></wp:category>
<wp:category><wp:term_id>3</wp:term_id><wp:category_nicename>${cdata('local-news')}</wp:category_nicename><wp:category_parent>${cdata('news')}</wp:category_parent><wp:cat_name>${cdata('Local news')}</wp:cat_name></wp:category>
<wp:tag><wp:term_id>4</wp:term_id><wp:tag_slug>${cdata('emigre')}</wp:tag_slug><wp:tag_name>${cdata('Émigré')}</wp:tag_name></wp:tag>
<wp:term><wp:term_id>5</wp:term_id><wp:term_taxonomy>${cdata('nav_menu')}</wp:term_taxonomy><wp:term_slug>${cdata('main')}</wp:term_slug><wp:term_name>${cdata('Main')}</wp:term_name></wp:term>
`
}

export const TAIL = '</channel>\n</rss>\n'

/** Every feature, files at `files` (the local server). */
export function fullExport (files: string, site = SITE): string {
  const photo = `${files}/wp-content/uploads/2020/01/photo.png`
  const items: ItemSpec[] = [
    {
      id: 20,
      title: 'Grüße aus Köln — 東京',
      content: `<!-- wp:paragraph --><p>Voilà: <a href="${site}/about/team/">the team</a> and <a href="${site}/?p=21">the secret</a>.</p><!-- /wp:paragraph -->\n<!-- wp:image {"id":10} --><figure><img src="${files}/wp-content/uploads/2020/01/photo-300x200.png" class="wp-image-10"/></figure><!-- /wp:image -->`,
      excerpt: 'Ein Auszug',
      slug: 'gruesse',
      sticky: true,
      categories: [['category', 'local-news', 'Local news'], ['post_tag', 'emigre', 'Émigré'], ['post_format', 'post-format-aside', 'Aside']],
      meta: {
        _thumbnail_id: '10',
        custom_field: 'kept as-is: a:1:{s:3:"key";s:5:"value";}',
        _seo_a_title: '#post_title #separator_sa #site_title',
        _seo_a_description: 'Eine Beschreibung',
        _seo_a_keyphrases: JSON.stringify({ focus: { keyphrase: 'köln' }, additional: [] }),
        _builder_edit_mode: 'builder',
        _builder_data: JSON.stringify([{ id: 'a1', elType: 'section', elements: [] }])
      },
      comments: [
        { id: 100, author: 'Jürgen', email: 'j@commenter.example', content: 'Schön! 👍', date: '2020-01-03 08:00:00' },
        { id: 101, parent: 100, author: 'Åsa', email: 'asa@commenter.example', content: 'Tack', date: '2020-01-03 09:00:00', approved: '0' }
      ]
    },
    { id: 21, title: 'Secret', slug: 'secret', content: '<p>Only with the password</p>', password: 'open sesame', creator: 'zoe', categories: [['category', 'news', 'News']] },
    { id: 22, title: 'Tomorrow', slug: 'tomorrow', content: '<p>Scheduled</p>', status: 'future', date: '2099-05-01 09:00:00' },
    { id: 23, title: 'Unfinished', slug: 'unfinished', content: '<p>Draft</p>', status: 'draft' },
    { id: 24, title: 'Binned', slug: 'binned', status: 'trash' },
    { id: 25, type: 'nav_menu_item', title: '', status: 'publish' },
    { id: 10, type: 'attachment', title: 'A photo', excerpt: 'Its caption', status: 'inherit', parent: 20, attachmentUrl: photo, slug: 'photo', meta: { _wp_attached_file: '2020/01/photo.png', _wp_attachment_image_alt: 'Alt text' } },
    { id: 11, type: 'attachment', title: 'Gone', status: 'inherit', attachmentUrl: `${files}/wp-content/uploads/2020/01/missing.png`, slug: 'gone' },
    { id: 30, type: 'page', title: 'About', slug: 'about', menuOrder: 1, commentStatus: 'closed' },
    { id: 31, type: 'page', title: 'Team', slug: 'team', link: `${site}/about/team/`, parent: 30, menuOrder: 2, commentStatus: 'closed' },
    { id: 32, type: 'page', title: 'Jobs', slug: 'jobs', parent: 31, menuOrder: 0, commentStatus: 'closed' }
  ]
  return head(site) + items.map((i) => itemXml(site, i)).join('') + TAIL
}
