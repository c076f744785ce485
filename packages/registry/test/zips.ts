/**
 * Package zips for tests, made with yazl (no binary fixtures), and a
 * package source on disk or on a loopback HTTP server.
 */
import { createReadStream } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import yazl from 'yazl'
import { scratchDir } from '@cms/testing'

export interface ZipEntry { name: string, data: string | Buffer, mode?: number }

export async function makeZip (entries: ZipEntry[], opts: { compress?: boolean } = {}): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  for (const e of entries) {
    zip.addBuffer(Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data), e.name, { compress: opts.compress ?? true, ...(e.mode === undefined ? {} : { mode: e.mode }) })
  }
  zip.end()
  const chunks: Buffer[] = []
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** A plugin or theme package: `<slug>/manifest.json` plus `extra` files (and a marker file naming the version). */
export async function packageZip (slug: string, version: string, extra: Record<string, string> = {}): Promise<Buffer> {
  const files: ZipEntry[] = [
    { name: `${slug}/manifest.json`, data: JSON.stringify({ name: `Package ${slug}`, version, slug }) },
    { name: `${slug}/version.txt`, data: version },
    ...Object.entries(extra).map(([name, data]) => ({ name: `${slug}/${name}`, data }))
  ]
  return await makeZip(files)
}

/** The same bytes with every `from` replaced by `to` (same length): names yazl refuses to write. */
export function renameInZip (zip: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error('same length only')
  const out = Buffer.from(zip)
  const needle = Buffer.from(from)
  let at = out.indexOf(needle)
  while (at !== -1) {
    out.write(to, at)
    at = out.indexOf(needle, at + needle.length)
  }
  return out
}

/** A package source directory holding `packages` (`plugins/<slug>.<version>.zip`...) and an index.json. */
export async function sourceDir (packages: Array<{ type: 'plugin' | 'theme', slug: string, version: string, zip: Buffer }>, index = true): Promise<string> {
  const dir = await scratchDir('source')
  const listing: Record<string, Record<string, string[]>> = { plugins: {}, themes: {} }
  for (const p of packages) {
    const folder = p.type === 'plugin' ? 'plugins' : 'themes'
    await mkdir(join(dir, folder), { recursive: true })
    await writeFile(join(dir, folder, `${p.slug}.${p.version}.zip`), p.zip)
    ;(listing[folder]![p.slug] ??= []).push(p.version)
  }
  if (index) await writeFile(join(dir, 'index.json'), JSON.stringify(listing))
  return dir
}

/** Serves a source directory over HTTP on loopback (under /repo/); counts the requests. */
export async function httpSource (dir: string): Promise<{ url: string, requests: string[], close: () => Promise<void> }> {
  const requests: string[] = []
  const server = createServer((req, res) => {
    requests.push(req.url!)
    const path = decodeURIComponent(new URL(req.url!, 'http://x').pathname)
    if (!path.startsWith('/repo/') || path.includes('..')) { res.writeHead(404).end(); return }
    const file = join(dir, path.slice('/repo/'.length))
    const stream = createReadStream(file)
    stream.on('error', () => { if (!res.headersSent) res.writeHead(404); res.end() })
    stream.on('open', () => { res.writeHead(200, { 'content-type': 'application/zip' }); stream.pipe(res) })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/repo/`,
    requests,
    close: async () => { server.closeAllConnections(); await new Promise<void>((resolve) => server.close(() => { resolve() })) }
  }
}
