/**
 * hdrftr/v1 plugin catalogues (builder-family.md §7): `plugins` (the
 * companion plugins the product suggests, those already active left out),
 * `recommended-plugins` (the onboarding suggestions; the starter templates
 * hidden when their Pro version is installed) and `templates` (the state of
 * the starter-templates plugin). Each entry's `status` is read from the
 * package registry: `Install` (not installed), `Installed` (inactive) or
 * `Activated`. Neutral names stand for the real catalogue's products
 * (CONVENTIONS.md §1). Administrators only (`manage_options`).
 */
import { Type, type TSchema } from '@sinclair/typebox'
import { endpoint, route, type RelativeRouteDecl, type RestRequest } from '@cms/rest'
import { mayManageSettings } from './access.js'

export type InstallStatus = 'Install' | 'Installed' | 'Activated'

/** The install status of a plugin, read from the registry. */
export type StatusOf = (slug: string) => Promise<InstallStatus>

interface CatalogueEntry { slug: string, name: string, desc: string }

/** Where the catalogue's vendor pages and packages are (neutral placeholders). */
const VENDOR = 'https://plugins.cms.invalid/'

export const STARTER_TEMPLATES = 'starter-templates'
export const STARTER_TEMPLATES_PRO = 'starter-templates-pro'

/** `plugins`: the companion plugins, in the product's order. */
export const COMPANIONS: readonly CatalogueEntry[] = [
  { slug: 'rank-seo', name: 'Rank SEO', desc: 'Search-engine optimisation with guided fixes and a site audit.' },
  { slug: 'checkout', name: 'Checkout', desc: 'Sell products, subscriptions and downloads with a fast checkout.' },
  { slug: 'forms', name: 'Forms', desc: 'Build forms with the block editor: contact, surveys, payments.' },
  { slug: 'media-player', name: 'Media Player', desc: 'A fast video and audio player with chapters and analytics.' },
  { slug: 'automations', name: 'Automations', desc: 'Connect the site to other apps and automate tasks.' }
]

/** `recommended-plugins`: the onboarding suggestions. */
export const RECOMMENDED: readonly CatalogueEntry[] = [
  { slug: STARTER_TEMPLATES, name: 'Starter Templates', desc: 'Ready-made site templates to import in a click.' },
  { slug: 'rank-seo', name: 'Rank SEO', desc: 'Search-engine optimisation with guided fixes and a site audit.' },
  { slug: 'forms', name: 'Forms', desc: 'Build forms with the block editor: contact, surveys, payments.' },
  { slug: 'automations', name: 'Automations', desc: 'Connect the site to other apps and automate tasks.' }
]

const INSTALL_STATUS = Type.Union([Type.Literal('Install'), Type.Literal('Installed'), Type.Literal('Activated')])

/** Plugins keyed by slug. */
const CATALOGUE = Type.Record(Type.String(), Type.Object({
  icon: Type.String(),
  type: Type.String(),
  name: Type.String(),
  desc: Type.String(),
  directory_url: Type.String(),
  url: Type.String(),
  siteurl: Type.String(),
  isFree: Type.Boolean(),
  slug: Type.String(),
  status: INSTALL_STATUS,
  // Null without an admin front end (CMS_ADMIN_URL).
  settings_url: Type.Union([Type.String(), Type.Null()])
}))

/** An admin screen under CMS_ADMIN_URL, or null without an admin front end (core admin-links.ts). */
type AdminLink = (page: string) => string | null

/** `redirect_url` when there is somewhere to go, else nothing. */
const withLink = (url: string | null): { redirect_url?: string } => url === null ? {} : { redirect_url: url }

function item (admin: AdminLink, e: CatalogueEntry, status: InstallStatus): Record<string, unknown> {
  return {
    icon: `${VENDOR}${e.slug}/icon.svg`,
    type: 'plugin',
    name: e.name,
    desc: e.desc,
    directory_url: `${VENDOR}${e.slug}/`,
    url: `${VENDOR}${e.slug}/latest.zip`,
    siteurl: `${VENDOR}${e.slug}/`,
    isFree: true,
    slug: e.slug,
    status,
    settings_url: admin(`admin.php?page=${e.slug}`)
  }
}

export function pluginCatalogueRoutes (statusOf: StatusOf, admin: AdminLink): RelativeRouteDecl[] {
  const get = (path: string, summary: string, response: TSchema, handler: (req: RestRequest<any>) => Promise<unknown>): RelativeRouteDecl =>
    route({ path, endpoints: [endpoint({ methods: ['GET'], args: {}, summary, response, permission: mayManageSettings, handler })] })

  return [
    get('/plugins', 'The companion plugins not active yet, with their install status', CATALOGUE, async (req) => {
      const out: Record<string, unknown> = {}
      for (const e of COMPANIONS) {
        const status = await statusOf(e.slug)
        if (status !== 'Activated') out[e.slug] = item(admin, e, status)
      }
      return out
    }),
    get('/recommended-plugins', 'The recommended plugins with their install status', CATALOGUE, async (req) => {
      const out: Record<string, unknown> = {}
      const proTemplates = await statusOf(STARTER_TEMPLATES_PRO) !== 'Install'
      for (const e of RECOMMENDED) {
        if (e.slug === STARTER_TEMPLATES && proTemplates) continue
        out[e.slug] = item(admin, e, await statusOf(e.slug))
      }
      return out
    }),
    get('/templates', 'The state of the starter-templates plugin', Type.Object({ templates_status: INSTALL_STATUS, redirect_url: Type.Optional(Type.String({ description: 'When activated and an admin front end is configured (CMS_ADMIN_URL).' })) }), async (req) => {
      // The free or the Pro version, whichever is further along.
      const both = [await statusOf(STARTER_TEMPLATES), await statusOf(STARTER_TEMPLATES_PRO)]
      const status: InstallStatus = both.includes('Activated') ? 'Activated' : both.includes('Installed') ? 'Installed' : 'Install'
      return status === 'Activated'
        ? { templates_status: status, ...withLink(admin('themes.php?page=starter-templates')) }
        : { templates_status: status }
    })
  ]
}
