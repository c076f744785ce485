/**
 * The plugin's one-time usage events (builder-family.md §7: the first
 * completed learning path, the first time an MCP setting is turned on),
 * recorded locally in the `hdrftr_usage_events` option (event -> when it
 * first happened, Unix seconds) and never sent anywhere.
 */
import { Type } from '@sinclair/typebox'
import type { PackageApi } from '@cms/core'

const EVENTS = Type.Record(Type.String({ pattern: '^[a-z0-9_]{1,64}$' }), Type.Integer({ minimum: 0 }), { maxProperties: 100 })

export interface UsageEvents {
  /** Records `event` unless it was recorded before. */
  once: (event: string) => Promise<void>
  all: () => Promise<Record<string, number>>
}

export function usageEvents (api: PackageApi): UsageEvents {
  const option = api.option('hdrftr_usage_events', EVENTS, { default: {}, description: 'One-time usage events of the header/footer plugin (event -> first time, Unix seconds); kept locally.' })
  return {
    async once (event) {
      const known = await option.get()
      if (Object.hasOwn(known, event)) return
      await option.set({ ...known, [event]: Math.floor(Date.now() / 1000) })
    },
    all: async () => await option.get()
  }
}
