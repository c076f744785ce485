// test-all: alone (it measures its own process's heap: scripts/test-run.mjs runs it in a process of its own,
// not in a batch where another file's leftovers could move the figure).
// A 50 MB export file read as a stream: a dry run over it (nothing
// written) keeps the heap flat. What the heap retains (after a collection,
// every tenth batch) is measured against the heap before the run; a reader
// that held the file, or the records, would retain more than the file.
import t from 'tap'
import { createWriteStream, mkdtempSync, statSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { createOutboundClient } from '@cms/core'
import { openTestStore } from '@cms/store/testing'
import { readWxr } from '../src/import/wxr.js'
import { runImport } from '../src/import/run.js'
import { head, itemXml, TAIL, SITE } from './import-fixtures.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const MB = 1024 * 1024

t.test('a 50 MB file, memory flat', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cms-import-mem-'))
  const db = await openTestStore()
  t.teardown(async () => {
    await db.close()
    await rm(dir, { recursive: true, force: true })
  })
  const file = join(dir, 'big.xml')
  const out = createWriteStream(file)
  out.write(head())
  // Text of several scripts, a few kilobytes per post.
  const body = '<!-- wp:paragraph --><p>Grüße aus Köln, 東京の夜, naïve café — lorem ipsum dolor sit amet.</p><!-- /wp:paragraph -->\n'.repeat(40)
  let items = 0
  while (out.bytesWritten + out.writableLength < 50 * MB) {
    items++
    const ok = out.write(itemXml(SITE, { id: 1000 + items, title: `Post ${items} — ${'é'.repeat(items % 7)}`, content: body, meta: { _seo_a_title: `T ${items}` }, categories: [['category', 'news', 'News']], comments: items % 10 === 0 ? [{ id: items, author: 'Åsa', email: 'a@b.example', content: 'Tack', date: '2020-01-03 09:00:00' }] : [] }))
    if (!ok) await new Promise<void>((resolve) => out.once('drain', () => { resolve() }))
  }
  out.end(TAIL)
  await new Promise<void>((resolve) => out.once('finish', () => { resolve() }))
  t.ok(statSync(file).size >= 50 * MB, `${(statSync(file).size / MB).toFixed(1)} MB, ${items} posts`)

  gc()
  const before = process.memoryUsage()
  let peakHeap = 0
  let peakRss = 0
  let lines = 0
  let ticks = 0
  const summary = await runImport({
    store: db,
    env: {},
    records: readWxr(file),
    dryRun: true,
    batchSize: 50,
    outbound: createOutboundClient(),
    concurrency: 1,
    retries: 0,
    out: () => { lines++ },
    tick: () => {
      if (++ticks % 10 !== 0) return
      gc()
      const now = process.memoryUsage()
      peakHeap = Math.max(peakHeap, now.heapUsed - before.heapUsed)
      peakRss = Math.max(peakRss, now.rss - before.rss)
    }
  })
  t.equal(summary.kinds.post?.created, items, 'every post read')
  t.equal(lines, items + 5 + Math.floor(items / 10), 'one line per change: posts, 2 users, 3 terms, every tenth post\'s comment')
  t.ok(ticks >= 100, 'measured along the way')
  t.comment(`retained heap growth at most ${(peakHeap / MB).toFixed(1)} MB, RSS growth at most ${(peakRss / MB).toFixed(1)} MB`)
  t.ok(peakHeap < 16 * MB, `retained heap growth ${(peakHeap / MB).toFixed(1)} MB stays under 16 MB (the file is 50 MB)`)
  t.ok(peakRss < 64 * MB, `RSS growth ${(peakRss / MB).toFixed(1)} MB stays under 64 MB`)
})
