/**
 * The site's options (`getOptions`) as routes read them: kept between reads.
 */
import type { RestRequest } from '@cms/rest'
import { getOptions, type Store } from '@cms/store'

/**
 * Site options, kept between reads. A read for a REST request reuses them
 * while the settings epoch stays (`req.epoch('settings')`: renewed by every
 * write to options, core migration 0014), so a change made through
 * /cms/v2/settings, on any replica, shows at once; other reads re-read
 * them after a short while.
 */
const OPTIONS_TTL_MS = 2000

export function cachedSiteOptions (store: Store): (req?: RestRequest) => Promise<Awaited<ReturnType<typeof getOptions>>> {
  let value: Awaited<ReturnType<typeof getOptions>> | undefined
  let loadedAt = 0
  let loadedUnder: string | undefined
  return async (req) => {
    const horizon = req === undefined ? undefined : await req.epoch('settings')
    // A REST request without a token (a kernel given no horizon) reuses nothing.
    const stale = req !== undefined ? horizon === undefined || horizon !== loadedUnder : Date.now() - loadedAt > OPTIONS_TTL_MS
    if (value === undefined || stale) {
      value = await getOptions(store)
      loadedAt = Date.now()
      loadedUnder = horizon
    }
    return value
  }
}
