/**
 * Deployment profiles are data: the namespaces each one exposes, in the
 * order the index lists them, and the small per-profile differences.
 */
export interface Profile {
  name: string
  namespaces: readonly string[]
  /** Per-namespace options handed to the namespace factory. */
  options?: Record<string, Record<string, unknown>>
}

export const profiles: Record<string, Profile> = {
  A: {
    name: 'A',
    namespaces: [
      'oembed/1.0', 'cms/v2', 'rollback/v1', 'theme-a/v1', 'hdrftr/v1', 'builder/v1',
      'builder/v1/documents', 'builder-ai/v1', 'nps-survey/v1',
      'cms-site-health/v1', 'cms-block-editor/v1', 'cms-abilities/v1'
    ]
  },
  B: {
    name: 'B',
    namespaces: [
      'oembed/1.0', 'cms/v2', 'rollback/v1', 'hdrftr/v1', 'builder/v1', 'builder/v1/documents',
      'builder-ai/v1', 'nps-survey/v1', 'builder/v1/feedback', 'seo/v1', 'builder-one/v1',
      'assistant/v1', 'addons-a/v1', 'addons-b/v1', 'theme-helper/v1', 'analytics-connector/v1',
      'cms-site-health/v1', 'cms-block-editor/v1', 'cms-abilities/v1'
    ],
    options: {
      'rollback/v1': { archiveSorting: true },
      'hdrftr/v1': { learnRoutes: true }
    }
  }
}

/** The profile's namespaces, narrowed to `only` when a namespace service runs a subset. */
export function namespacesOf (profile: Profile, only?: readonly string[]): string[] {
  if (only === undefined || only.length === 0) return [...profile.namespaces]
  const unknown = only.filter((ns) => !profile.namespaces.includes(ns))
  if (unknown.length > 0) {
    throw new Error(`CMS_NAMESPACES names namespaces profile ${profile.name} does not expose: ${unknown.join(', ')}`)
  }
  return profile.namespaces.filter((ns) => only.includes(ns))
}
