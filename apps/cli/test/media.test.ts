// `cms media import`: a local file and a URL (from a loopback server the
// test starts, reachable because CMS_OUTBOUND_ALLOW names it) become
// attachments with their files under the content directory; a refused
// file and an address the outbound client refuses leave nothing.
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openTestStore } from '@cms/store/testing'
import { coreMigrations } from '@cms/core'
import { inProcess } from './helpers.js'

/** A 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

function filesUnder (dir: string): string[] {
  const out: string[] = []
  const walk = (d: string): void => {
    let names: string[] = []
    try { names = readdirSync(d) } catch { return }
    for (const name of names) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else out.push(p.slice(dir.length + 1))
    }
  }
  walk(dir)
  return out.sort()
}

t.test('cms media import', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cms-cli-media-'))
  const content = join(dir, 'content')
  const db = await openTestStore({ migrations: [coreMigrations] })
  const server = createServer((req, res) => {
    if (req.url === '/img/dot.png') {
      res.writeHead(200, { 'content-type': 'image/png' }).end(PNG)
      return
    }
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  t.teardown(async () => {
    server.close()
    await db.close()
    await rm(dir, { recursive: true, force: true })
  })
  const { exec } = inProcess(db, { CMS_CONTENT_DIR: content, CMS_BASE_URL: 'http://cms.test', CMS_OUTBOUND_ALLOW: '127.0.0.1' })
  const blocked = inProcess(db, { CMS_CONTENT_DIR: content, CMS_BASE_URL: 'http://cms.test' })

  const none = await exec(['media', 'import', join(dir, 'x.png')])
  t.equal(none.code, 2, 'no administrator yet: a usage error')
  t.equal((await exec(['user', 'create', 'admin', '--email', 'a@example.com', '--role', 'administrator', '--password', 'admin-pw-123'])).code, 0)

  const local = join(dir, 'Local Dot.png')
  writeFileSync(local, PNG)
  const url = `http://127.0.0.1:${port}/img/dot.png`
  const res = await exec(['media', 'import', local, url])
  t.equal(res.code, 0, res.stdout + res.stderr)
  const lines = res.stdout.trim().split('\n')
  t.equal(lines.length, 2)
  t.match(lines[0], /^\[1\/2\] .*Local Dot\.png: 0\.0 MB, attachment \d+ \(image\/png\) http:\/\/cms\.test\/cms-content\/uploads\/\d{4}\/\d{2}\/Local-Dot\.png$/)
  t.match(lines[1], /^\[2\/2\] http:\/\/127\.0\.0\.1:\d+\/img\/dot\.png: 0\.0 MB, attachment \d+ \(image\/png\) .*\/dot\.png$/)
  const stored = filesUnder(join(content, 'uploads'))
  t.equal(stored.length, 2)
  t.ok(readFileSync(join(content, 'uploads', stored[0]!)).equals(PNG))

  const post = await db.execute<{ id: number }>("insert into posts (type, status, modified_gmt, title) values ('post', 'draft', now(), 'Holder') returning id")
  const attached = await exec(['media', 'import', local, '--post', String(post[0]!.id), '--json'])
  t.equal(attached.code, 0, attached.stdout)
  const row = JSON.parse(attached.stdout.trim())
  const parent = await db.execute<{ parent: number }>(`select parent from posts where id = ${Number(row.id)}`)
  t.equal(parent[0]!.parent, post[0]!.id)
  t.match(row.source_url, /Local-Dot-1\.png$/)

  const before = filesUnder(content)
  const script = join(dir, 'evil.php')
  writeFileSync(script, '<?php echo 1;')
  const refused = await exec(['media', 'import', script])
  t.equal(refused.code, 1)
  t.match(refused.stdout, /\[1\/1\] .*evil\.php: failed: Sorry, you are not allowed to upload this file type\./)
  const ssrf = await blocked.exec(['media', 'import', url])
  t.equal(ssrf.code, 1)
  t.match(ssrf.stdout, /failed/)
  t.same(filesUnder(content), before, 'nothing written for refused imports')
  const count = await db.execute<{ n: number }>("select count(*)::int as n from posts where type = 'attachment'")
  t.equal(count[0]!.n, 3)
})
