/**
 * The plugins builder-one manages (builder-family.md §6), under neutral
 * names (CONVENTIONS.md §1): the eight supported slugs (the reference's
 * `<slug_1..8>`) and the seven that can move onto the site's one
 * connection (`<slug_a..g>`: all but the assistant). The real ones are, in
 * order, the AI assistant, the site-management plugin, the page builder
 * and its Pro version, the mailer, the image optimizer, the accessibility
 * plugin and the cookie-consent plugin.
 */
import { Enum } from '@cms/rest'

export const SUPPORTED_SLUGS = ['assistant', 'manage', 'builder', 'builder-pro', 'mailer', 'image-optimizer', 'accessibility', 'cookie-consent'] as const

export const MIGRATION_SLUGS = SUPPORTED_SLUGS.filter((s) => s !== 'assistant')

/**
 * The oldest version of each plugin that ships the one-connection package
 * (the service's own packages all do from their first version); an older
 * one cannot migrate (`409 migration_exception`).
 */
export const ONE_PACKAGE_SINCE = '0.1.0'

export const supportedSlugArg = Enum(SUPPORTED_SLUGS, { description: 'One of the supported plugins.' })
export const migrationSlugArg = Enum(MIGRATION_SLUGS, { description: 'One of the plugins that can use the site\'s connection.' })
