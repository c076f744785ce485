/**
 * The packages whose contributions are off now (a deactivated plugin's),
 * outside the kernel: the set the deciding package (the registry) answers
 * through the platform (platform.ts), kept there by the activation epoch, so
 * every process of a deployment follows the stored state with no restart.
 * Read by what follows activation besides the routes, meta and fields: the
 * capabilities a caller holds (authenticate.ts: `RoleRegistry.visible`) and
 * the lifecycle-event worker (events/index.ts: their listeners are skipped).
 */
import { epochToken } from '@cms/rest'
import type { Store } from '@cms/store'

/** The off set (namespaces and package names) under a token: the activation epoch's, else the commit horizon. */
export type OffReader = (validity: () => Promise<string | undefined>) => Promise<ReadonlySet<string>>

const NONE: ReadonlySet<string> = new Set()

export class SiteActivation {
  private reader: OffReader | undefined

  constructor (private readonly store: () => Store) {}

  /** @internal Set by the platform when a package decides activation (at most one does). */
  decideBy (reader: OffReader): void { this.reader = reader }

  /** The off set now (empty where nothing decides); `validity` default: the activation epoch's token, asked afresh. */
  async off (validity?: () => Promise<string | undefined>): Promise<ReadonlySet<string>> {
    if (this.reader === undefined) return NONE
    return await this.reader(validity ?? (async () => epochToken(await this.store().snapshot(), 'activation')))
  }
}
