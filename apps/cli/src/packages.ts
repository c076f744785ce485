/**
 * The installed packages as the command line sees them: registered on a
 * bare app (nothing served) so their migrations and their options (with
 * schemas) are known.
 */
import { resolve } from 'node:path'
import { createServices, declaredBy, packageSettingsFromEnv, type Platform, type Services } from '@cms/core'
// The gateway's list, so a package is installed in one place for both; its own export
// (`@cms/gateway/packages`), so the gateway's HTTP stack is not loaded.
import { installedPackages, packagesPathOf, withPackagesUnder } from '@cms/gateway/packages'
import { loadProfiles, type Profile } from '@cms/gateway/profiles'
import { baseDirOf, storeSettingsFromEnv, type Store } from '@cms/store'

/**
 * Runs `fn` with what every installed package declared, on `store`. With
 * `env`, the content directory and package settings are the service's
 * (`CMS_CONTENT_DIR`, `CMS_PACKAGE_SOURCE`...), for commands that touch files.
 */
export async function withPackages<T> (store: Store, fn: (platform: Platform, services: Services) => Promise<T>, env?: NodeJS.ProcessEnv): Promise<T> {
  const services = createServices({ store, settings: env === undefined ? { profile: 'cli', contentDir: '' } : { profile: 'cli', contentDir: contentDirOf(env), packages: packageSettingsFromEnv(env, baseDirOf(env)) } })
  // Commands that touch files see the deployment's namespaces (the registry seeds a fresh site by them).
  const profile = env === undefined ? undefined : profileOf(env)
  // And the deployment's own packages (CMS_PACKAGES_PATH), so `cms migrate` migrates them too.
  const { platform, close } = await declaredBy(await withPackagesUnder(installedPackages, packagesPathOf(env ?? process.env)), services, profile?.namespaces)
  try {
    return await fn(platform, services)
  } finally {
    await close()
  }
}

/** The deployment's profile (CMS_DEPLOYMENT among the built-in ones and CMS_PROFILES'), else A. */
function profileOf (env: NodeJS.ProcessEnv): Profile | undefined {
  const given = env.CMS_PROFILES ?? ''
  const known = loadProfiles(given === '' ? undefined : resolve(baseDirOf(env), given))
  return known[env.CMS_DEPLOYMENT ?? 'A'] ?? known.A
}

/** The content directory the service uses: `CMS_CONTENT_DIR`, else `content` under the data directory. */
function contentDirOf (env: NodeJS.ProcessEnv): string {
  const given = env.CMS_CONTENT_DIR ?? ''
  return given === '' ? resolve(storeSettingsFromEnv(env).dataDir, 'content') : resolve(baseDirOf(env), given)
}
