/**
 * The packages whose contributions are off now (a deactivated plugin's),
 * outside the kernel: the set the deciding package (the registry) answers
 * through the platform (platform.ts), cached there by the commit horizon, so
 * every process of a deployment follows the stored state with no restart.
 * Read by what follows activation besides the routes, meta and fields: the
 * capabilities a caller holds (authenticate.ts: `RoleRegistry.visible`) and
 * the lifecycle-event worker (events/index.ts: their listeners are skipped).
 */
import type { Store } from '@cms/store'

/** The off set (namespaces and package names) under a commit horizon. */
export type OffReader = (horizon: () => Promise<string | undefined>) => Promise<ReadonlySet<string>>

const NONE: ReadonlySet<string> = new Set()

export class SiteActivation {
  private reader: OffReader | undefined

  constructor (private readonly store: () => Store) {}

  /** @internal Set by the platform when a package decides activation (at most one does). */
  decideBy (reader: OffReader): void { this.reader = reader }

  /** The off set now (empty where nothing decides); `horizon` default: the store's, asked afresh. */
  async off (horizon?: () => Promise<string | undefined>): Promise<ReadonlySet<string>> {
    if (this.reader === undefined) return NONE
    return await this.reader(horizon ?? (async () => await this.store().horizon()))
  }
}
