/** The services as media knows them: the content's, with where uploads live. */
import type { ContentServices } from '../services.js'
import type { MediaStorage } from './storage.js'
import type { MediaPlace } from './place.js'

export interface MediaServices extends ContentServices {
  /** Where uploaded files live (default: `uploads/` under the content directory). */
  mediaStorage?: MediaStorage
  /** The uploads' storage (`mediaStorage` or the default), work directory and size limit. */
  media: MediaPlace
}
