/**
 * What the builder hands to packages that build on it (the assistant):
 * its design kit, the kit's factory settings, its library template types
 * and its site settings, through functions, never its tables or options
 * directly. A package depending on `@cms/builder` asks for it while it
 * registers: `const builder = api.require(builderService)`.
 */
import { serviceKey, type PackageOption } from '@cms/core'
import type { TSchema } from '@sinclair/typebox'
import type { KitSettings, KitStore } from './kit.js'

export interface BuilderService {
  /** The active design kit (made with the factory settings on first use). */
  kits: KitStore
  /** The kit's factory settings (a fresh copy). */
  factorySettings: () => KitSettings
  /** The library's template types (`page`, `section`, `container`) and the kit's. */
  templateTypes: readonly string[]
  /** A builder site option by name (`builder_cpt_support`, `builder_font_display`...), undefined when not one. */
  setting: (name: string) => PackageOption<TSchema> | undefined
}

export const builderService = serviceKey<BuilderService>('@cms/builder/service')
