/**
 * The example of get_head in the OpenAPI document (`EndpointDecl.example`):
 * the head of a published post of a site at https://cms.example.com, its
 * structured data cut to the article, its page and the site. The gateway's
 * completeness test checks the request with the kernel's validation of the
 * route's arguments and the answer against the documented schema.
 */
import type { EndpointExample } from '@cms/rest'

const SITE = 'https://cms.example.com'
const POST = `${SITE}/?p=1`
const TITLE = 'Hello world - My CMS Site'
const PUBLISHED = '2026-11-28T09:30:00+00:00'

const GRAPH = {
  '@context': 'https://schema.org',
  '@graph': [
    { '@type': 'Article', '@id': `${POST}#article`, isPartOf: { '@id': POST }, headline: 'Hello world', datePublished: PUBLISHED, dateModified: PUBLISHED, wordCount: 3, inLanguage: 'en-US' },
    { '@type': 'WebPage', '@id': POST, url: POST, name: TITLE, isPartOf: { '@id': `${SITE}/#website` }, inLanguage: 'en-US' },
    { '@type': 'WebSite', '@id': `${SITE}/#website`, url: `${SITE}/`, name: 'My CMS Site', inLanguage: 'en-US' }
  ]
}

export const HEAD_EXAMPLE: EndpointExample = {
  request: { url: POST },
  response: {
    html: [
      `<title>${TITLE}</title>`,
      '<meta name="robots" content="index, follow, max-snippet:-1, max-image-preview:large, max-video-preview:-1" />',
      `<link rel="canonical" href="${POST}" />`,
      '<meta property="og:type" content="article" />',
      `<meta property="og:title" content="${TITLE}" />`,
      '<meta property="og:description" content="My first post." />',
      `<meta property="og:url" content="${POST}" />`,
      `<meta property="article:published_time" content="${PUBLISHED}" />`,
      '<meta name="twitter:card" content="summary_large_image" />',
      `<script type="application/ld+json" class="seo-schema-graph">${JSON.stringify(GRAPH)}</script>`
    ].join('\n') + '\n',
    json: {
      title: TITLE,
      robots: { index: 'index', follow: 'follow', 'max-snippet': 'max-snippet:-1', 'max-image-preview': 'max-image-preview:large', 'max-video-preview': 'max-video-preview:-1' },
      canonical: POST,
      og_type: 'article',
      og_title: TITLE,
      og_description: 'My first post.',
      og_url: POST,
      article_published_time: PUBLISHED,
      twitter_card: 'summary_large_image',
      schema: GRAPH
    },
    status: 200
  }
}
