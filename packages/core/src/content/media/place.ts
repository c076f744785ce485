/**
 * Where a deployment keeps its uploads: the storage, the work directory and
 * the upload limit, and the image limits, made once with its services
 * (`services.media`).
 */
import { join } from 'node:path'
import { localStorage, workDir, type MediaStorage } from './storage.js'
import { IMAGE_DEFAULTS, ImageGate, type ImageLimits } from './image-gate.js'

export const DEFAULT_UPLOAD_MAX_BYTES = 64 * 1024 * 1024

export interface MediaPlace {
  storage: MediaStorage
  /** Files being received or made, on the same volume as the local storage. */
  work: string
  maxBytes: number
  /** The pixel bound and the gate every image of this deployment goes through. */
  images: ImageLimits
}

/** The place of a deployment: `storage` when given, else `uploads/` under the content directory. */
export function mediaPlaceOf (settings: { contentDir: string, uploadMaxBytes?: number, imageMaxPixels?: number, imageConcurrency?: number }, storage: MediaStorage | undefined): MediaPlace {
  return {
    storage: storage ?? localStorage(join(settings.contentDir, 'uploads')),
    work: workDir(settings.contentDir),
    maxBytes: settings.uploadMaxBytes ?? DEFAULT_UPLOAD_MAX_BYTES,
    images: {
      maxPixels: settings.imageMaxPixels ?? IMAGE_DEFAULTS.maxPixels,
      gate: new ImageGate(settings.imageConcurrency ?? IMAGE_DEFAULTS.concurrency)
    }
  }
}
