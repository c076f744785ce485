/**
 * Images are bounded before they are decoded (issue 27, item 4): the pixel
 * count comes from the header (a PNG of a few bytes declaring 16000 x 16000
 * is refused 413 before any pixel is decoded, where it used to be decoded
 * for seconds and hundreds of megabytes), and images are made a few at a
 * time so that serving files never waits behind them. Work is counted
 * (images inside the gate at once, files left, answers), never timed.
 */
import t from 'tap'
import { mkdtempSync, readdirSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import sharp from 'sharp'
import { testApp } from '../src/testing.js'
import { withContentUsers } from './fixtures/content/harness.js'

/** Files under `dir`, recursively. */
function filesIn (dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name)
}

async function png (width: number, height: number): Promise<Buffer> {
  return await sharp({ create: { width, height, channels: 3, background: { r: 10, g: 120, b: 30 } } }).png().toBuffer()
}

/** A small PNG whose header declares `width` x `height` (its IHDR rewritten, CRC fixed): its pixel data cannot fill it. */
async function declaring (width: number, height: number): Promise<Buffer> {
  const file = Buffer.from(await png(16, 16))
  file.writeUInt32BE(width, 16)
  file.writeUInt32BE(height, 20)
  file.writeUInt32BE(crc32(file.subarray(12, 29)), 29)
  return file
}

t.test('images bounded by their declared pixels, made a few at a time', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cms-media-images-'))
  const h = await withContentUsers(await testApp({ namespaces: ['cms/v2'], contentDir: dir, images: { maxPixels: 40_000, concurrency: 1 } }))
  t.teardown(async () => {
    await h.app.close()
    await rm(dir, { recursive: true, force: true })
  })
  const { author } = h.users
  const upload = async (name: string, data: Buffer) => await h.call('POST', '/cms/v2/media', {
    as: author,
    headers: { 'content-type': 'image/png', 'content-disposition': `attachment; filename="${name}"` },
    payload: data
  })
  const gate = h.services.media.images.gate
  // Counts what passes the gate, and how many at once.
  let entered = 0
  let inside = 0
  let most = 0
  const run = gate.run.bind(gate)
  // While `hold.until` is set, the first image to enter the gate stays in it: the file below is asked
  // for while an image is certainly being made and the others wait (no race with their speed).
  const hold: { until?: Promise<void> } = {}
  gate.run = async (work) => await run(async () => {
    entered++
    most = Math.max(most, ++inside)
    try {
      if (entered === 1 && hold.until !== undefined) await hold.until
      return await work()
    } finally { inside-- }
  })

  const bomb = await declaring(16000, 16000)
  t.ok(bomb.length < 1000, `a ${bomb.length}-byte PNG declaring 16000 x 16000`)
  const refused = await upload('bomb.png', bomb)
  t.equal(refused.status, 413, 'refused 413')
  t.same(refused.body.code, 'rest_upload_image_too_large')
  t.same(refused.body.data, { status: 413, limit: 'CMS_IMAGE_MAX_PIXELS', max: 40_000, width: 16000, height: 16000 }, 'naming the limit and what the header declared')

  const over = await upload('over.png', await png(201, 200))
  t.equal(over.status, 413, 'a real image one row of pixels over the bound: 413')
  t.same(filesIn(dir), [], 'the refused ones left no file')
  const within = await upload('within.png', await png(200, 200))
  t.equal(within.status, 201, 'at the bound: accepted')
  t.same(Object.keys(within.body.media_details.sizes).sort(), ['full', 'thumbnail'])

  // Four images at once, then a file: the gate lets one image through at a time.
  entered = 0
  let release = (): void => {}
  hold.until = new Promise<void>((resolve) => { release = resolve })
  const images = await Promise.all([1, 2, 3, 4].map(async (i) => await png(150 + i, 160)))
  const pending = images.map(async (data, i) => await upload(`many-${i}.png`, data))
  let servedWhileWaiting = false
  const file = (async () => {
    // Once the first image is in the gate (held there; the others queue), a stored file is asked
    // for: were file serving queued behind images, this would never answer.
    // eslint-disable-next-line no-unmodified-loop-condition -- counted by the uploads under way
    while (entered === 0) await new Promise((resolve) => setImmediate(resolve))
    const res = await h.app.inject({ method: 'GET', url: new URL(within.body.source_url as string).pathname })
    servedWhileWaiting = gate.load.running + gate.load.waiting > 0
    release()
    return res.statusCode
  })()
  const answers = await Promise.all(pending)
  t.same(answers.map((a) => a.status), [201, 201, 201, 201], 'all four made')
  t.equal(await file, 200, 'the file is served')
  t.ok(servedWhileWaiting, 'served while images were still being made or waiting: not queued behind them')
  t.equal(most, 1, 'never more images at once than the concurrency setting')
  t.equal(entered, 4)
})
