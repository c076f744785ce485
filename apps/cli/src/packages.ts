/**
 * The installed packages as the command line sees them: registered on a
 * bare app (nothing served) so their migrations and their options (with
 * schemas) are known.
 */
import { createServices, declaredBy, type Platform, type Services } from '@cms/core';
// The gateway's list, so a package is installed in one place for both; its own export
// (`@cms/gateway/packages`), so the gateway's HTTP stack is not loaded.
import { installedPackages } from '@cms/gateway/packages';
import type { Store } from '@cms/store';

/** Runs `fn` with what every installed package declared, on `store`. */
export async function withPackages<T>(store: Store, fn: (platform: Platform, services: Services) => Promise<T>): Promise<T> {
  const services = createServices({ store, settings: { profile: 'cli', contentDir: '' } });
  const { platform, close } = await declaredBy(installedPackages, services);
  try {
    return await fn(platform, services);
  } finally {
    await close();
  }
}
