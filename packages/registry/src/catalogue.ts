/**
 * The packages a fresh site has installed and active: a plugin for each
 * extension the site runs and the default theme, under neutral names
 * (CONVENTIONS §1). The page builder, its add-ons, the SEO plugin, the
 * header/footer plugin, the rollback plugin and the default theme are there
 * in every profile (the six slugs of rollback's `process-rollback` in
 * profile A); the others when the deployment serves one of their namespaces
 * (profile B). Their directories hold the package's assets; an upgrade or a
 * rollback replaces them.
 */
import type { PackageType } from './api.js'

export interface SeedPackage {
  type: PackageType
  slug: string
  name: string
  description: string
  /** Installed when the deployment serves one of these; always when empty. */
  namespaces: readonly string[]
}

/** The version of the packages the service ships (its workspace packages' version). */
export const SEED_VERSION = '0.1.0'

export const SEED_PACKAGES: readonly SeedPackage[] = [
  { type: 'plugin', slug: 'builder', name: 'Page Builder', description: 'Visual page builder: globals, templates, checklist, editor helpers.', namespaces: [] },
  { type: 'plugin', slug: 'addons', name: 'Page Builder Add-ons', description: 'Extra widgets for the page builder (mega menu, widget builder).', namespaces: [] },
  { type: 'plugin', slug: 'seo', name: 'SEO', description: 'Search-engine optimisation: scores, bulk editing, indexing.', namespaces: [] },
  { type: 'plugin', slug: 'hdrftr', name: 'Header and Footer Templates', description: 'Header, footer and block templates for the page builder.', namespaces: [] },
  { type: 'plugin', slug: 'rollback', name: 'Rollback', description: 'Roll plugins and themes back to an earlier version.', namespaces: [] },
  { type: 'plugin', slug: 'assistant', name: 'Site Assistant', description: 'AI site assistant: snippets and artifacts.', namespaces: ['assistant/v1'] },
  { type: 'plugin', slug: 'analytics-connector', name: 'Analytics Connector', description: 'Connects the site to an analytics service.', namespaces: ['analytics-connector/v1'] },
  { type: 'plugin', slug: 'theme-helper', name: 'Theme Helper', description: 'Companion plugin of the default theme.', namespaces: ['theme-helper/v1'] },
  { type: 'theme', slug: 'theme-a', name: 'Theme A', description: 'The default theme.', namespaces: [] }
]

/** The seed packages of a deployment serving the namespaces `serves` accepts. */
export function seedPackagesFor (serves: (namespace: string) => boolean): SeedPackage[] {
  return SEED_PACKAGES.filter((p) => p.namespaces.length === 0 || p.namespaces.some(serves))
}

/** The files of a seed package's directory: its manifest and assets. */
export function seedFiles (p: SeedPackage): Record<string, string> {
  const manifest = { name: p.name, version: SEED_VERSION, slug: p.slug, description: p.description, requires: { cms: SEED_VERSION } }
  const files: Record<string, string> = {
    'manifest.json': `${JSON.stringify(manifest, null, 2)}\n`,
    'settings.json': '{}\n'
  }
  if (p.type === 'theme') {
    files['style.css'] = `/* ${p.name} ${SEED_VERSION}: the default stylesheet */\nbody { margin: 0; font-family: system-ui, sans-serif; }\n`
    files['templates/index.html'] = '<main class="site-main"></main>\n'
  } else {
    files['assets/style.css'] = `/* ${p.name} ${SEED_VERSION} */\n`
  }
  // The pictures of the builder's checklist steps (builder/v1 checklist answers link to them).
  if (p.type === 'plugin' && p.slug === 'builder') {
    for (const step of ['add_logo', 'set_fonts_and_colors', 'create_pages', 'setup_header', 'assign_homepage']) {
      files[`assets/checklist/${step}.svg`] = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><title>${step}</title><rect width="64" height="64" rx="8" fill="#e8eaf6"/></svg>\n`
    }
  }
  return files
}
