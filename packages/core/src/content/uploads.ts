/**
 * Where uploaded files are served. In content, not with the media routes, so
 * that the content reader (and through it the services) links files without
 * importing the routes, which import the services.
 */

/** Where the service serves uploaded files, below its base URL. */
export const UPLOADS_PATH = '/cms-content/uploads'

/** The public URL of the stored file `key`. */
export function fileUrl (home: string, key: string): string {
  return `${home}${UPLOADS_PATH}/${key.split('/').map(encodeURIComponent).join('/')}`
}
