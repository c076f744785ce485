/**
 * The plugins builder-one manages (builder-family.md §6), under neutral
 * names (CONVENTIONS.md §1): the eight supported slugs (the reference's
 * `<slug_1..8>`) and the seven that can move onto the site's one
 * connection (`<slug_a..g>`: all but the assistant). The real ones are, in
 * order, the AI assistant, the site-management plugin, the page builder
 * and its Pro version, the mailer, the image optimizer, the accessibility
 * plugin and the cookie-consent plugin.
 */
const SUPPORTED_SLUGS = ['assistant', 'manage', 'builder', 'builder-pro', 'mailer', 'image-optimizer', 'accessibility', 'cookie-consent'] as const

export const MIGRATION_SLUGS = SUPPORTED_SLUGS.filter((s) => s !== 'assistant')
