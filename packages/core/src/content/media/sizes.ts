/**
 * Image sizes, made with sharp: the core's `thumbnail` (150x150, cropped),
 * `medium` (300x300), `medium_large` (768 wide) and `large` (1024x1024),
 * each only when the image is larger. Derived files are turned upright by
 * their EXIF orientation and carry no metadata; an original that needs
 * turning gets an upright `-rotated` copy that becomes the attached file.
 */
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { rm } from 'node:fs/promises'
import type { FormatEnum, Metadata } from 'sharp'
import { mediaErrors } from './errors.js'
import type { ImageLimits } from './image-gate.js'

export interface ImageSize { name: string, width: number, height: number, crop: boolean }

/** Width and height 0 mean "no limit". */
export const IMAGE_SIZES: readonly ImageSize[] = [
  { name: 'thumbnail', width: 150, height: 150, crop: true },
  { name: 'medium', width: 300, height: 300, crop: false },
  { name: 'medium_large', width: 768, height: 0, crop: false },
  { name: 'large', width: 1024, height: 1024, crop: false }
]

/** A derived file in the work directory; its stored name is `{stem}-{width}x{height}.{ext}` (`{stem}-rotated.{ext}`). */
export interface MadeFile { size: string, path: string, width: number, height: number, mime: string, bytes: number }

export interface MadeImage {
  /** Upright width and height of the image. */
  width: number
  height: number
  /** An upright copy replacing the original as the attached file (orientation other than 1). */
  rotated?: MadeFile
  sizes: MadeFile[]
}

/** The dimensions of a size made from a `w` x `h` image, or undefined when the image is not larger. */
export function sizeDimensions (w: number, h: number, size: ImageSize): { width: number, height: number } | undefined {
  if (size.crop) {
    if (w <= size.width && h <= size.height) return undefined
    return { width: Math.min(w, size.width), height: Math.min(h, size.height) }
  }
  const rw = size.width === 0 ? Infinity : size.width / w
  const rh = size.height === 0 ? Infinity : size.height / h
  const ratio = Math.min(rw, rh)
  if (ratio >= 1) return undefined
  return { width: Math.max(1, Math.round(w * ratio)), height: Math.max(1, Math.round(h * ratio)) }
}

const FORMAT: Record<string, keyof FormatEnum | 'avif'> = {
  'image/jpeg': 'jpeg', 'image/png': 'png', 'image/gif': 'gif', 'image/webp': 'webp', 'image/avif': 'avif', 'image/tiff': 'tiff'
}

/**
 * Reads the image and makes its sizes in `dir`, through the gate (a few
 * images at a time). Its dimensions come from its header first (no pixel
 * decoded): more pixels than `maxPixels` is refused
 * (413), and sharp is told the same bound (`limitInputPixels`) in case a
 * header understates. Only the first frame of an animation is decoded, so
 * only it counts. A file sharp cannot read is refused (400); whatever
 * was made is removed on failure.
 */
export async function makeSizes (source: string, ext: string, mime: string, dir: string, limits: ImageLimits): Promise<MadeImage> {
  return await limits.gate.run(async () => await makeSizesNow(source, ext, mime, dir, limits.maxPixels))
}

/** The pixels of the frame that is decoded: sharp reads only the first of an animation's frames. */
export function declaredPixels (meta: Pick<Metadata, 'width' | 'height' | 'pageHeight'>): number {
  return (meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0)
}

async function makeSizesNow (source: string, ext: string, mime: string, dir: string, maxPixels: number): Promise<MadeImage> {
  const made: MadeFile[] = []
  const format = FORMAT[mime]!
  const input = { failOn: 'error', limitInputPixels: maxPixels } as const
  // Loaded on the first image: libvips costs the service about 25 MB of resident memory.
  const { default: sharp } = await import('sharp')
  try {
    let meta: Metadata
    try {
      // The header only: sharp reads dimensions without decoding pixels (unbounded here, so the bound is answered below).
      meta = await sharp(source, { failOn: 'error', limitInputPixels: false }).metadata()
    } catch {
      throw mediaErrors.rest_upload_image_error()
    }
    if (meta.width === undefined || meta.height === undefined) throw mediaErrors.rest_upload_image_error()
    if (declaredPixels(meta) > maxPixels) throw mediaErrors.rest_upload_image_too_large({ limit: 'CMS_IMAGE_MAX_PIXELS', max: maxPixels, width: meta.width, height: meta.height })
    const turned = (meta.orientation ?? 1) >= 5
    const width = turned ? meta.height : meta.width
    const height = turned ? meta.width : meta.height
    const write = async (size: string, w: number, h: number, crop: boolean): Promise<void> => {
      const path = join(dir, `${randomUUID()}.${ext}`)
      try {
        // rotate() without an angle applies the EXIF orientation; output carries no metadata.
        const info = await sharp(source, input).rotate()
          .resize(w, h, { fit: crop ? 'cover' : 'fill', position: 'centre' })
          .toFormat(format)
          .toFile(path)
        made.push({ size, path, width: info.width, height: info.height, mime, bytes: info.size })
      } catch (err) {
        await rm(path, { force: true })
        if ((err as { status?: number }).status !== undefined) throw err
        throw mediaErrors.rest_upload_image_error()
      }
    }
    let rotated: MadeFile | undefined
    if ((meta.orientation ?? 1) > 1) {
      await write('rotated', width, height, false)
      rotated = made[made.length - 1]
    }
    for (const size of IMAGE_SIZES) {
      const dims = sizeDimensions(width, height, size)
      if (dims === undefined) continue
      await write(size.name, dims.width, dims.height, size.crop)
    }
    return { width, height, rotated, sizes: made.filter((m) => m !== rotated) }
  } catch (err) {
    await Promise.all(made.map(async (m) => { await rm(m.path, { force: true }) }))
    throw err
  }
}
