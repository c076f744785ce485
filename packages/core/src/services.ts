/**
 * What a namespace package is given when a deployment composes it.
 */
import type { Store } from '@cms/store'

export interface Services {
  store: Store
  /** Settings of the deployment that namespace packages read (profile, content dir...). */
  settings: {
    profile: string
    contentDir: string
  }
}
