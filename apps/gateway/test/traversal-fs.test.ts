/**
 * Request values never become paths unchecked (issue 27, item 5): the
 * security harness's traversal list (test/data/traversal.txt), and forms
 * aimed at canary files placed just outside the content directory, fed to
 * every route argument that may reach the file system, of both profiles,
 * as an administrator (who reaches the most). Each is refused with a 4xx,
 * and afterwards nothing outside the content directory was read (no answer
 * carries a canary's text), written (no new file beside it) or deleted (the
 * canaries are there, unchanged).
 *
 * The places are found from the declarations, so a new route is not
 * forgotten: every path variable, every argument whose name says it takes a
 * path or file (`argKind`), and every argument whose declared pattern
 * admits a dot or a slash (a version, a slug with dots, a template name).
 * The file routes outside the REST namespaces (`/cms-content/...`) are
 * added by their address. The routes known to build paths from a request
 * value must be among the places found: discovery cannot lose them.
 */
import t from 'tap'
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import type { JsonSchema } from '@cms/rest'
import { createCaller, validValue } from '@cms/core/testing'
import { gatewayApp } from './helpers.js'
import { argKind, bodyArgs, fillPath, sampleVar, targetsOf, urlOf, type Target } from './harness/routes.js'
import { describe, encodeParams, inject, type HttpRequest } from './harness/requests.js'
import { readPayloads } from './harness/payloads.js'

/** What only the canaries hold: an answer carrying it read one. */
const TOKEN = `canary-${process.pid}-7f3a`
const CANARIES = ['canary.txt', 'canary.zip', 'canary.json', 'canary.css', 'index.php']

/** The harness's list, then forms aimed at the canaries from one to six levels below the content directory. */
const PAYLOADS = [
  ...readPayloads('traversal.txt'),
  ...[1, 2, 3, 4, 5, 6].flatMap((depth) => ['canary.zip', 'canary.css'].flatMap((name) => {
    const up = '../'.repeat(depth)
    return [`${up}${name}`, `${up.replace(/\//g, '%2f')}${name}`, `${up}${name.replace(/\.[a-z]+$/, '')}`]
  }))
]

/**
 * Routes that build a path from a request value (the packages that reach the
 * file system: rollback's archives, the assistant's snippet files, builder-one's
 * plugin and theme installs through the registry, media; the SEO import reads
 * only fixed names): where served, each must be among the places found.
 */
const KNOWN = [/^\/rollback\/v1\//, /^\/assistant\/v1\//, /^\/builder-one\/v1\//, /^\/cms\/v2\/media/]

/**
 * A place, and whether a traversal there must be refused: a path variable or
 * an argument named for a path must; an argument found by its pattern alone
 * may be text that only looks like a path (an application password's name),
 * held to the canaries' checks.
 */
type Place = ({ kind: 'var', name: string } | { kind: 'arg', name: string, schema: JsonSchema }) & { mustRefuse: boolean }

/** A pattern that lets a dot or a slash through can carry a path's pieces. */
function pathLikePattern (schema: JsonSchema): boolean {
  if (typeof schema.pattern !== 'string') return false
  try {
    const re = new RegExp(schema.pattern, 'u')
    return ['1.0.0', 'a.b', 'a/b', '..'].some((s) => re.test(s))
  } catch {
    return false
  }
}

function takesString (schema: JsonSchema): boolean {
  const type = schema.type
  return type === 'string' || type === undefined || (Array.isArray(type) && type.includes('string'))
}

function placesOf (target: Target): Place[] {
  const out: Place[] = target.vars.map((name) => ({ kind: 'var' as const, name, mustRefuse: true }))
  for (const a of bodyArgs(target)) {
    if (!takesString(a.schema) || Array.isArray(a.schema.enum)) continue
    const named = argKind(a.name, a.schema) === 'path'
    if (named || pathLikePattern(a.schema)) out.push({ kind: 'arg', name: a.name, schema: a.schema, mustRefuse: named })
  }
  return out
}

function requestOf (target: Target, place: Place, value: string, headers: Record<string, string>, encode: (s: string) => string): HttpRequest {
  const vars: Record<string, string> = {}
  for (const v of target.vars) vars[v] = place.kind === 'var' && place.name === v ? encode(value) : sampleVar(target.decl.vars![v]!)
  const params: Record<string, unknown> = {}
  for (const a of bodyArgs(target)) if (a.required) params[a.name] = validValue(a.schema, a.name)
  if (place.kind === 'arg') params[place.name] = value
  const path = fillPath(target.decl.path, vars)
  if (target.method === 'GET' || target.method === 'DELETE') return { method: target.method, url: urlOf(path, encodeParams(params)), headers }
  return { method: target.method, url: urlOf(path, ''), headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(params) }
}

/** Every file under `dir` but `skip`, with its size and modification time. */
function snapshot (dir: string, skip: string): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name)
      if (p === skip) continue
      if (entry.isDirectory()) walk(p)
      else {
        const s = statSync(p)
        out.set(relative(dir, p), `${s.size}:${s.mtimeMs}`)
      }
    }
  }
  walk(dir)
  return out
}

for (const profile of ['A', 'B'] as const) {
  t.test(`profile ${profile}: traversal reaches nothing outside the content directory`, async (t) => {
    // base/ holds the canaries; base/content/ is the service's content directory; deeper folders give the depths.
    const base = mkdtempSync(join(tmpdir(), 'cms-traversal-'))
    t.teardown(async () => { await rm(base, { recursive: true, force: true }) })
    const content = join(base, 'content')
    mkdirSync(content)
    for (const name of CANARIES) writeFileSync(join(base, name), `${TOKEN} ${name}\n`)
    mkdirSync(join(base, 'plugins', 'outside'), { recursive: true })
    writeFileSync(join(base, 'plugins', 'outside', 'style.css'), `${TOKEN} outside plugin\n`)
    const before = snapshot(base, content)

    const h = await gatewayApp({ env: { CMS_DEPLOYMENT: profile, CMS_CONTENT_DIR: content } })
    t.teardown(h.close)
    const admin = (await createCaller(h.store, 'administrator')).headers
    // Methods of one endpoint share its handler: one stands for all.
    const targets = targetsOf(h.app).filter((target) => target.endpoint.methods[0] === target.method)
    const found = targets.flatMap((target) => placesOf(target).map((place) => ({ target, place })))
    t.comment(`${found.length} places in ${new Set(found.map((f) => f.target.key)).size} routes`)
    for (const known of KNOWN) {
      if (!targets.some((x) => known.test(x.decl.path))) continue
      t.ok(found.some((f) => known.test(f.target.decl.path)), `discovery finds the places of ${known.source}`)
    }

    const problems: string[] = []
    let sent = 0
    const check = async (req: HttpRequest, what: string, mustRefuse = true): Promise<void> => {
      const res = await inject(h.app, req)
      sent++
      const refused = res.status >= 400 && res.status < 500
      if (((mustRefuse ? !refused : res.status >= 500) || res.body.includes(TOKEN)) && problems.length < 40) {
        problems.push(`${what}: ${res.status}${res.body.includes(TOKEN) ? ' (canary text disclosed)' : ''} ${res.body.slice(0, 160)}\n    ${describe(req)}`)
      }
    }
    for (const { target, place } of found) {
      for (const [i, payload] of PAYLOADS.entries()) {
        const encode = place.kind === 'var' && i % 2 === 1 ? encodeURI : encodeURIComponent
        await check(requestOf(target, place, payload, admin, encode), `${target.key} ${place.kind} ${place.name}`, place.mustRefuse)
      }
    }
    // The package and upload files, served outside the REST namespaces: under an unknown slug and under every
    // package the registry seeded (an active one's folder is where a path is resolved; a first request seeds them).
    await check({ method: 'GET', url: '/cms-content/plugins/x/a.css', headers: admin }, 'first package file')
    // Two packages of each type stand for all (they share one code path): an unknown slug and two seeded ones.
    const slugs = (folder: string): string[] => ['x', ...readdirSync(join(content, folder), { withFileTypes: true }).filter((d) => d.isDirectory() && !d.name.startsWith('.')).map((d) => d.name).slice(0, 2)]
    const folders = { plugins: slugs('plugins'), themes: slugs('themes'), uploads: ['x', '2026'] }
    t.ok(folders.plugins.length + folders.themes.length > 2, `packages to aim at: ${[...folders.plugins, ...folders.themes].join(', ')}`)
    for (const [folder, names] of Object.entries(folders)) {
      for (const slug of names) {
        for (const payload of PAYLOADS) await check({ method: 'GET', url: `/cms-content/${folder}/${slug}/${encodeURI(payload)}`, headers: admin }, `/cms-content/${folder}/${slug}`)
      }
    }
    for (const p of problems) t.comment(p)
    t.equal(problems.length, 0, `every traversal form refused with a 4xx where it would name a file, never a 5xx, no canary read (${sent} requests)`)

    const after = snapshot(base, content)
    t.same([...after].sort(), [...before].sort(), 'nothing outside the content directory was written or deleted')
    for (const name of CANARIES) t.equal(readFileSync(join(base, name), 'utf8'), `${TOKEN} ${name}\n`, `${name} unchanged`)
  })
}
