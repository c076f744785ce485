/**
 * The file types an upload may be: each MIME type with the extensions that
 * name it. What a file is comes from its content (sniffed), never from its
 * name or the header a client sent; the name only has to agree. Anything
 * not listed (scripts, HTML, SVG, executables, archives) is refused.
 */

export interface FileType {
  mime: string
  /** Extensions, the first being the one a file gets when its name has none that fits. */
  exts: readonly string[]
  /** Text types cannot be sniffed: their content is checked to be plain text. */
  text?: boolean
}

export const ALLOWED_TYPES: readonly FileType[] = [
  // Images.
  { mime: 'image/jpeg', exts: ['jpg', 'jpeg', 'jpe'] },
  { mime: 'image/png', exts: ['png'] },
  { mime: 'image/gif', exts: ['gif'] },
  { mime: 'image/webp', exts: ['webp'] },
  { mime: 'image/avif', exts: ['avif'] },
  { mime: 'image/heic', exts: ['heic'] },
  { mime: 'image/bmp', exts: ['bmp'] },
  { mime: 'image/tiff', exts: ['tif', 'tiff'] },
  { mime: 'image/x-icon', exts: ['ico'] },
  // Documents.
  { mime: 'application/pdf', exts: ['pdf'] },
  { mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', exts: ['docx'] },
  { mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', exts: ['xlsx'] },
  { mime: 'application/vnd.openxmlformats-officedocument.presentationml.presentation', exts: ['pptx'] },
  { mime: 'application/vnd.oasis.opendocument.text', exts: ['odt'] },
  { mime: 'application/vnd.oasis.opendocument.spreadsheet', exts: ['ods'] },
  { mime: 'application/vnd.oasis.opendocument.presentation', exts: ['odp'] },
  { mime: 'application/rtf', exts: ['rtf'] },
  // Audio.
  { mime: 'audio/mpeg', exts: ['mp3', 'm4b'] },
  { mime: 'audio/x-m4a', exts: ['m4a'] },
  { mime: 'audio/mp4', exts: ['m4a'] },
  { mime: 'audio/ogg', exts: ['ogg', 'oga'] },
  { mime: 'audio/wav', exts: ['wav'] },
  { mime: 'audio/flac', exts: ['flac'] },
  { mime: 'audio/aac', exts: ['aac'] },
  // Video.
  { mime: 'video/mp4', exts: ['mp4', 'm4v'] },
  { mime: 'video/x-m4v', exts: ['m4v'] },
  { mime: 'video/quicktime', exts: ['mov', 'qt'] },
  { mime: 'video/webm', exts: ['webm'] },
  { mime: 'video/ogg', exts: ['ogv'] },
  { mime: 'video/mpeg', exts: ['mpeg', 'mpg', 'mpe'] },
  { mime: 'video/3gpp', exts: ['3gp', '3gpp'] },
  { mime: 'video/vnd.avi', exts: ['avi'] },
  // Text (not sniffable: checked to be plain text).
  { mime: 'text/plain', exts: ['txt', 'asc', 'c', 'cc', 'h', 'srt'], text: true },
  { mime: 'text/csv', exts: ['csv'], text: true },
  { mime: 'text/tab-separated-values', exts: ['tsv'], text: true },
  { mime: 'text/calendar', exts: ['ics'], text: true },
  { mime: 'text/vtt', exts: ['vtt'], text: true },
  { mime: 'text/richtext', exts: ['rtx'], text: true }
]

const byExt = new Map<string, FileType[]>()
for (const t of ALLOWED_TYPES) for (const ext of t.exts) byExt.set(ext, [...(byExt.get(ext) ?? []), t])
const byMime = new Map(ALLOWED_TYPES.map((t) => [t.mime, t]))

/** The allowed types a file extension names (none: the extension is not allowed). */
export function typesOfExtension (ext: string): FileType[] {
  return byExt.get(ext.toLowerCase()) ?? []
}

export function allowedMime (mime: string): FileType | undefined {
  return byMime.get(mime)
}

/** The `media_type` of a MIME type: image, video, audio, text or application. */
export function mediaTypeOf (mime: string): 'image' | 'file' {
  return mime.startsWith('image/') ? 'image' : 'file'
}

/** Image types whose sizes are generated. */
export const RESIZABLE = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif', 'image/tiff'])

/**
 * Markup a browser would run or a server would interpret, looked for at the
 * start of text files: a `.txt` holding HTML or PHP is refused like one
 * named `.html`.
 */
const MARKUP = /<\?php|<\?=|<\s*(?:!doctype|html|head|body|script|iframe|object|embed|svg|meta|link|style|img|a\s|form|\?xml)/i

/** Whether the head of a file is plain text (UTF-8, no NUL, no markup). */
export function isPlainText (head: Buffer): boolean {
  if (head.includes(0)) return false
  // A multi-byte character cut at the end of the head is not an error.
  const text = new TextDecoder('utf-8', { fatal: false }).decode(head)
  if (text.slice(0, -4).includes('\uFFFD')) return false
  return !MARKUP.test(text)
}
