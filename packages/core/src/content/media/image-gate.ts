/**
 * How much image work runs at once. sharp decodes and resizes on libuv's
 * thread pool (four threads by default), the pool file reads use too: eight
 * large images at once held every thread, and serving a file waited behind
 * them. Images are made a few at a time (the rest wait their turn, in
 * order), leaving threads for files.
 */
export class ImageGate {
  private running = 0
  private readonly waiting: Array<() => void> = []

  constructor (readonly concurrency: number) {}

  /** Runs `work` when a place is free; the place is given back however it ends. */
  async run<T> (work: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve))
    else this.running++
    try {
      return await work()
    } finally {
      // The place goes straight to the next in line (running unchanged), else it is freed.
      const next = this.waiting.shift()
      if (next !== undefined) next()
      else this.running--
    }
  }

  /** Images being made now, and waiting (for tests and logs). */
  get load (): { running: number, waiting: number } {
    return { running: this.running, waiting: this.waiting.length }
  }
}

/** The defaults: 50 megapixels (a 10000 x 5000 image; about 200 MB decoded), two images at once. */
export const IMAGE_DEFAULTS = { maxPixels: 50_000_000, concurrency: 2 } as const

export interface ImageLimits {
  /** Most pixels an image may declare (all its frames), read from its header before any decoding. */
  maxPixels: number
  gate: ImageGate
}
