/**
 * hdrftr/v1 widgets (builder-family.md §7): the catalogue of the plugin's
 * widgets and extensions, keyed by widget class key, each free one with
 * its activation read from the `hdrftr_widgets` option (a map of key to
 * `"disabled"` or the key itself; a key absent from it has its default).
 * Pro widgets are listed with `is_pro: true` and no `is_activate`.
 * Administrators only (`manage_options`).
 */
import { Type } from '@sinclair/typebox'
import { endpoint, route, type RelativeRouteDecl } from '@cms/rest'
import type { PackageApi, PackageOption } from '@cms/core'
import { mayManageSettings } from './access.js'

/** Where the plugin's documentation and demos live (neutral placeholders, CONVENTIONS.md §1). */
export const DOCS_BASE = 'https://docs.cms.invalid/hdrftr/'
const DEMO_BASE = 'https://demo.cms.invalid/hdrftr/'

interface WidgetSpec {
  key: string
  slug: string
  title: string
  keywords: string[]
  category: 'header-footer' | 'content' | 'post' | 'extension'
  description: string
  default: boolean
  pro?: true
  isNew?: true
}

const w = (key: string, slug: string, title: string, category: WidgetSpec['category'], keywords: string[], description: string, extra: Partial<WidgetSpec> = {}): WidgetSpec =>
  ({ key, slug, title, category, keywords: ['hdrftr', ...keywords], description, default: true, ...extra })

/** The catalogue, in the order the product lists it. */
export const WIDGETS: readonly WidgetSpec[] = [
  w('Retina', 'retina', 'Retina Logo', 'header-footer', ['retina', 'image', 'logo'], 'Show a logo with a second image for high-density screens.'),
  w('Site_Logo', 'site-logo', 'Site Logo', 'header-footer', ['site', 'logo', 'image'], 'Show the site logo set in the site identity.'),
  w('Site_Title', 'site-title', 'Site Title', 'header-footer', ['site', 'title', 'name'], 'Show the site title, linked to the home page.'),
  w('Site_Tagline', 'site-tagline', 'Site Tagline', 'header-footer', ['site', 'tagline', 'description'], 'Show the site tagline.'),
  w('Navigation_Menu', 'navigation-menu', 'Navigation Menu', 'header-footer', ['menu', 'navigation', 'links'], 'Show a menu of the site with dropdowns and a mobile layout.'),
  w('Page_Title', 'page-title', 'Page Title', 'content', ['page', 'title', 'heading'], 'Show the title of the page being viewed.'),
  w('Copyright', 'copyright', 'Copyright', 'header-footer', ['copyright', 'date', 'footer'], 'Show a copyright line with the current year and the site name.'),
  w('Search_Button', 'search-button', 'Search', 'header-footer', ['search', 'form', 'button'], 'Show a search form or a search icon.'),
  w('Cart', 'cart', 'Cart', 'header-footer', ['cart', 'shop', 'basket'], 'Show the shop cart with its item count and total.'),
  w('Breadcrumbs_Widget', 'breadcrumbs-widget', 'Breadcrumbs', 'content', ['breadcrumbs', 'links', 'navigation'], 'Show the path from the home page to the page being viewed.'),
  w('Post_Info', 'post-info', 'Post Info', 'post', ['post', 'author', 'date', 'meta'], 'Show the author, date, time and comments of a post.'),
  w('Basic_Posts', 'basic-posts', 'Basic Posts', 'post', ['posts', 'grid', 'list', 'blog'], 'List posts in a grid with their image, title and excerpt.'),
  w('Infocard', 'infocard', 'Info Card', 'content', ['info', 'card', 'box', 'icon'], 'Show an icon or image with a heading, text and a call to action.', { isNew: true }),
  w('Scroll_To_Top', 'scroll-to-top', 'Scroll to Top', 'extension', ['scroll', 'top', 'button'], 'Add a button that takes visitors back to the top of the page.', { default: false }),
  w('Reading_Progress_Bar', 'reading-progress-bar', 'Reading Progress Bar', 'extension', ['reading', 'progress', 'bar'], 'Show how far a visitor has read through the page.', { default: false }),
  w('Duplicator', 'duplicator', 'Post Duplicator', 'extension', ['duplicate', 'copy', 'clone'], 'Copy a post, page or template with one click.', { default: false }),
  w('Advanced_Heading', 'advanced-heading', 'Advanced Heading', 'content', ['heading', 'title', 'separator'], 'A heading with a sub-heading, separator and background text.', { pro: true }),
  w('Modal_Popup', 'modal-popup', 'Modal Popup', 'content', ['modal', 'popup', 'lightbox'], 'Open content in a popup on click, on load or on exit intent.', { pro: true }),
  w('Table', 'table', 'Table', 'content', ['table', 'data', 'rows'], 'Build a sortable, searchable table.', { pro: true }),
  w('Timeline', 'timeline', 'Timeline', 'content', ['timeline', 'history', 'events'], 'Show events along a vertical timeline.', { pro: true })
]

/** The stored activations: widget key -> `"disabled"` or the key. */
export const WIDGETS_OPTION = Type.Record(Type.String({ pattern: '^[A-Za-z0-9_]{1,64}$' }), Type.String({ maxLength: 64 }), { maxProperties: 200 })

export function declareWidgetsOption (api: PackageApi): PackageOption<typeof WIDGETS_OPTION> {
  return api.option('hdrftr_widgets', WIDGETS_OPTION, { default: {}, description: 'Which header/footer widgets are active: widget key -> "disabled" or the key.' })
}

export function widgetRoutes (activations: PackageOption<typeof WIDGETS_OPTION>): RelativeRouteDecl[] {
  return [route({
    path: '/widgets',
    endpoints: [endpoint({
      methods: ['GET'],
      args: {},
      summary: 'The widget catalogue with each free widget\'s activation',
      response: Type.Record(Type.String(), Type.Object({ slug: Type.String(), title: Type.String(), keywords: Type.Array(Type.String()), icon: Type.String(), default: Type.Boolean(), is_pro: Type.Boolean(), description: Type.String(), category: Type.String(), is_new: Type.Optional(Type.Boolean()), is_activate: Type.Optional(Type.Boolean({ description: 'Free widgets only.' })) }), { description: 'Keyed by widget key.' }),
      permission: mayManageSettings,
      handler: async () => {
        const stored = await activations.get()
        const out: Record<string, Record<string, unknown>> = {}
        for (const spec of WIDGETS) {
          const item: Record<string, unknown> = {
            slug: spec.slug,
            title: spec.title,
            keywords: spec.keywords,
            icon: `hdrftr-icon-${spec.slug}`,
            title_url: '#',
            default: spec.default,
            doc_url: `${DOCS_BASE}widgets/${spec.slug}/`,
            is_pro: spec.pro === true,
            description: spec.description,
            demo_url: `${DEMO_BASE}${spec.slug}/`,
            category: spec.category
          }
          if (spec.isNew === true) item.is_new = true
          if (spec.pro !== true) {
            const state = Object.hasOwn(stored, spec.key) ? stored[spec.key] : undefined
            item.is_activate = state === undefined ? spec.default : state !== 'disabled'
          }
          out[spec.key] = item
        }
        return out
      }
    })]
  })]
}
