#!/usr/bin/env node
/**
 * No import cycle among the folders of a package's sources: in each
 * `src` (packages/*\/src, apps/*\/src, bench/src, or the roots given as
 * arguments), and in every folder under it, each subfolder and each file
 * beside them is one node, and an import from a file under one node of a
 * file under another is an edge (type-only imports, re-exports and dynamic
 * imports too: a cycle of types still ties the folders together): the
 * seams a package is split along (docs/architecture.md, "Layers of the
 * core"). A cycle among files is one too: its files split among two or more
 * nodes of the deepest folder holding them all, and the walk between those
 * nodes closes (two files of one folder are two nodes of it).
 * Prints each cycle's nodes with the imports that make its edges, and
 * exits 1 when there is one.
 *
 *   node scripts/folder-cycles.mjs [src-dir ...]
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ts = createRequire(import.meta.url)('typescript')
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

function defaultRoots () {
  const roots = []
  for (const group of ['packages', 'apps']) {
    const dir = path.join(repo, group)
    if (!existsSync(dir)) continue
    for (const name of readdirSync(dir).sort()) {
      const src = path.join(dir, name, 'src')
      if (existsSync(src) && statSync(src).isDirectory()) roots.push(src)
    }
  }
  if (existsSync(path.join(repo, 'bench/src'))) roots.push(path.join(repo, 'bench/src'))
  return roots
}

function sourcesUnder (dir) {
  const out = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) { if (entry.name !== 'node_modules') out.push(...sourcesUnder(full)) } else if (/\.(m?ts|m?js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full)
  }
  return out
}

/**
 * The folders' graphs of one root, one per folder (the root included):
 * folder -> node -> node -> the imports making that edge, an import
 * counting in the deepest folder holding both its ends.
 */
export function folderGraphs (root) {
  const graphs = new Map()
  for (const file of sourcesUnder(root)) {
    // The specifiers of every import, re-export and dynamic import (comments and strings aside).
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue
      const target = path.resolve(path.dirname(file), fileName)
      if (!target.startsWith(root + path.sep)) continue
      const a = path.relative(root, file).split(path.sep)
      const b = path.relative(root, target).split(path.sep)
      let depth = 0
      while (depth < a.length - 1 && depth < b.length - 1 && a[depth] === b[depth]) depth++
      const from = a[depth]; const to = b[depth].replace(/\.js$/, '.ts')
      if (from === to) continue
      const folder = a.slice(0, depth).join('/') || '.'
      if (!graphs.has(folder)) graphs.set(folder, new Map())
      const edges = graphs.get(folder)
      if (!edges.has(from)) edges.set(from, new Map())
      const why = edges.get(from)
      if (!why.has(to)) why.set(to, [])
      why.get(to).push(`${path.relative(root, file)} -> ${fileName}`)
    }
  }
  return graphs
}

/** Strongly connected components with more than one node (Tarjan). */
export function cyclesOf (edges) {
  let next = 0
  const index = new Map(); const low = new Map(); const stack = []; const onStack = new Set(); const found = []
  const visit = (v) => {
    index.set(v, next); low.set(v, next++); stack.push(v); onStack.add(v)
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))) } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)))
    }
    if (low.get(v) === index.get(v)) {
      const component = []
      let w
      do { w = stack.pop(); onStack.delete(w); component.push(w) } while (w !== v)
      if (component.length > 1) found.push(component.sort())
    }
  }
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v)
  return found
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const roots = process.argv.length > 2 ? process.argv.slice(2).map((r) => path.resolve(r)) : defaultRoots()
  let failed = 0
  for (const root of roots) {
    const shown = path.relative(repo, root)
    for (const [folder, edges] of [...folderGraphs(root)].sort(([a], [b]) => a.localeCompare(b))) {
      for (const component of cyclesOf(edges)) {
        failed++
        console.log(`${path.join(shown.startsWith('..') ? root : shown, folder)}: a cycle among ${component.join(', ')}`)
        for (const a of component) {
          for (const b of component) {
            const why = edges.get(a)?.get(b)
            if (why !== undefined) console.log(`  ${a} -> ${b}: ${why.slice(0, 3).join(' | ')}${why.length > 3 ? ` (+${why.length - 3})` : ''}`)
          }
        }
      }
    }
  }
  if (failed > 0) {
    console.log(`${failed} folder cycle(s): move the shared piece below both folders, or reach the upper one through a seam (docs/architecture.md).`)
    process.exit(1)
  }
  console.log(`No folder cycle in ${roots.length} source root(s).`)
}
