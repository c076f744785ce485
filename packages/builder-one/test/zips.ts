/**
 * Package zips and a package source directory for tests, made with yazl
 * (no binary fixtures); the layout is the registry's (CONVENTIONS.md §9:
 * `plugins/<slug>.<version>.zip`, `themes/...`, an `index.json` listing
 * the versions), as packages/registry/test/zips.ts makes them.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import yazl from 'yazl'

export type Kind = 'plugin' | 'theme'

export async function packageZip (slug: string, version: string): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  zip.addBuffer(Buffer.from(JSON.stringify({ name: `Package ${slug}`, version, slug })), `${slug}/manifest.json`)
  zip.addBuffer(Buffer.from(version), `${slug}/version.txt`)
  zip.end()
  const chunks: Buffer[] = []
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** Adds a version of a package to a source directory (and its index). */
export async function offer (dir: string, type: Kind, slug: string, version: string): Promise<void> {
  const folder = type === 'plugin' ? 'plugins' : 'themes'
  await mkdir(join(dir, folder), { recursive: true })
  await writeFile(join(dir, folder, `${slug}.${version}.zip`), await packageZip(slug, version))
  let listing: Record<string, Record<string, string[]>> = { plugins: {}, themes: {} }
  try { listing = JSON.parse(await readFile(join(dir, 'index.json'), 'utf8')) } catch {}
  ;(listing[folder]![slug] ??= []).push(version)
  await writeFile(join(dir, 'index.json'), JSON.stringify(listing))
}

export async function sourceDir (packages: Array<[Kind, string, string]>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cms-one-source-'))
  for (const [type, slug, version] of packages) await offer(dir, type, slug, version)
  return dir
}
