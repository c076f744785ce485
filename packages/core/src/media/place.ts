/**
 * Where a deployment keeps its uploads: the storage, the work directory and
 * the upload limit, made once with its services (`services.media`).
 */
import { join } from 'node:path'
import { localStorage, workDir, type MediaStorage } from './storage.js'

export const DEFAULT_UPLOAD_MAX_BYTES = 64 * 1024 * 1024

export interface MediaPlace {
  storage: MediaStorage
  /** Files being received or made, on the same volume as the local storage. */
  work: string
  maxBytes: number
}

/** The place of a deployment: `storage` when given, else `uploads/` under the content directory. */
export function mediaPlaceOf (settings: { contentDir: string, uploadMaxBytes?: number }, storage: MediaStorage | undefined): MediaPlace {
  return {
    storage: storage ?? localStorage(join(settings.contentDir, 'uploads')),
    work: workDir(settings.contentDir),
    maxBytes: settings.uploadMaxBytes ?? DEFAULT_UPLOAD_MAX_BYTES
  }
}
