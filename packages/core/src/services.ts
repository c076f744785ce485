/**
 * What a namespace package is given when a deployment composes it.
 */
import type { Store } from '@cms/store'
import type { MediaStorage } from './media/storage.js'

export interface Services {
  store: Store
  /** Settings of the deployment that namespace packages read (profile, content dir...). */
  settings: {
    profile: string
    contentDir: string
    /** The largest upload in bytes (`CMS_UPLOAD_MAX_BYTES`, default 64 MiB). */
    uploadMaxBytes?: number
  }
  /** Where uploaded files live (default: `uploads/` under the content directory). */
  mediaStorage?: MediaStorage
}
