/**
 * The examples of the media routes in the OpenAPI document
 * (`EndpointDecl.example`): a 1200x800 JPEG uploaded to a fresh site at
 * https://cms.example.com, then listed and read (`_links` shortened). The
 * gateway's completeness test checks each request with the kernel's
 * validation of the route's arguments and each answer against the
 * documented schema.
 */
import type { EndpointExample } from '@cms/rest'

const SITE = 'https://cms.example.com'
const UPLOADS = `${SITE}/cms-content/uploads/2026/11`
const TIME = '2026-11-28T09:40:00'

/** One generated size of the image. */
function size (name: string, width: number, height: number, filesize: number): Record<string, unknown> {
  const file = `photo-${width}x${height}.jpg`
  return { [name]: { file, width, height, filesize, mime_type: 'image/jpeg', source_url: `${UPLOADS}/${file}` } }
}

/** The upload as answered: `view` context to anyone, `edit` context (raw values too) to its uploader. */
function mediaItem (edit: boolean): Record<string, unknown> {
  const source = `${UPLOADS}/photo.jpg`
  const link = `${SITE}/?attachment_id=5`
  const text = (raw: string, rendered: string): Record<string, string> => edit ? { raw, rendered } : { rendered }
  return {
    id: 5,
    date: TIME,
    date_gmt: TIME,
    guid: text(source, source),
    modified: TIME,
    modified_gmt: TIME,
    slug: 'a-photo',
    status: 'inherit',
    type: 'attachment',
    link,
    title: text('A photo', 'A photo'),
    author: 1,
    comment_status: 'closed',
    ping_status: 'closed',
    template: '',
    meta: { footnotes: '' },
    ...(edit ? { permalink_template: link, generated_slug: 'a-photo' } : {}),
    class_list: ['post-5', 'attachment', 'type-attachment', 'status-inherit', 'hentry', 'image-jpeg'],
    description: text('', ''),
    caption: text('', ''),
    alt_text: 'The harbour at dawn',
    media_type: 'image',
    mime_type: 'image/jpeg',
    media_details: {
      width: 1200,
      height: 800,
      file: '2026/11/photo.jpg',
      filesize: 5893,
      sizes: {
        ...size('large', 1024, 683, 4396),
        ...size('medium', 300, 200, 639),
        ...size('thumbnail', 150, 150, 418),
        ...size('medium_large', 768, 512, 2572),
        full: { file: 'photo.jpg', width: 1200, height: 800, mime_type: 'image/jpeg', source_url: source }
      }
    },
    post: null,
    source_url: source,
    ...(edit ? { missing_image_sizes: [] } : {}),
    _links: {
      self: [{ href: `${SITE}/index.php?rest_route=/cms/v2/media/5` }],
      collection: [{ href: `${SITE}/index.php?rest_route=/cms/v2/media` }]
    }
  }
}

export const MEDIA_EXAMPLES: Record<'list' | 'create' | 'read', EndpointExample> = {
  list: { request: { media_type: 'image', per_page: 10 }, response: [mediaItem(false)] },
  // The fields of an upload: form fields beside its `file`, or the query of a raw upload.
  create: { request: { title: 'A photo', alt_text: 'The harbour at dawn' }, response: mediaItem(true) },
  read: { request: { id: 5 }, response: mediaItem(false) }
}
