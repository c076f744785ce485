/**
 * The shell blocks of the Markdown documentation, for docs-commands.test.ts:
 * every fenced block marked ```sh, ```bash or ```console, with the
 * `<!-- docs-test: ... -->` comment right before it, if any. Other fences
 * (```json, ```ts, ```http, a bare ```) show files, code or output, not
 * commands, and are left alone. A ```console block is a terminal session:
 * its commands are the lines after a `$ ` prompt (and their `\`
 * continuations), every other line is output, shown as `# ...` would be,
 * and checked as text when it is not JSON (doc-shell.ts).
 * A document whose blocks need profile B's namespaces says so once, above
 * its first block: `<!-- docs-test: profile B -->` (the test runs them
 * against a second service started as the documentation starts profile B).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

export const SHELL_LANGUAGES = ['sh', 'bash', 'console']

export interface DocBlock {
  /** The file, relative to the repository root. */
  file: string
  /** 1-based line of the block's first command line (the line after the opening fence). */
  line: number
  text: string
  /**
   * A ```console block's lines (of `text`) that are shown output, not
   * commands; undefined for other blocks (their outputs are `# {...}` lines).
   */
  shown?: boolean[]
  /**
   * What its marker says: `run` (no marker), `not run` with the reason, `start` (the
   * service's start command: the test starts the service with its settings).
   */
  marker: { kind: 'run' } | { kind: 'not run', reason: string } | { kind: 'start' }
  /** The profile whose service runs it: the document's `profile X` marker, else A. */
  profile: string
}

const MARKER = /^<!--\s*docs-test:\s*(.*?)\s*-->$/
const PROFILE = /^profile ([A-Za-z0-9][A-Za-z0-9_-]*)$/

/** A console session as a script: prompts removed, output lines made comments (and marked shown). */
function consoleScript (text: string): { text: string, shown: boolean[] } {
  let continued = false
  const shown: boolean[] = []
  const script = text.split('\n').map((line) => {
    const command = continued || line.startsWith('$ ')
    const out = command ? line.replace(/^\$ /, continued ? '$ ' : '') : `# ${line}`
    continued = command && line.endsWith('\\')
    shown.push(!command)
    return out
  }).join('\n')
  return { text: script, shown }
}

function markerOf (comment: string, where: string): DocBlock['marker'] {
  if (comment === 'start') return { kind: 'start' }
  const notRun = /^not run \((.+)\)$/.exec(comment)
  if (notRun !== null) return { kind: 'not run', reason: notRun[1]! }
  throw new Error(`${where}: unknown docs-test marker "${comment}" (known: "not run (reason)", "start", and "profile X" once above a document's first block)`)
}

export function blocksOf (file: string, source: string): DocBlock[] {
  const lines = source.split('\n')
  const blocks: DocBlock[] = []
  let profile: string | undefined
  for (let i = 0; i < lines.length; i++) {
    const p = PROFILE.exec(MARKER.exec(lines[i]!.trim())?.[1] ?? '')
    if (p !== null) {
      // Once, before any block: a document runs against one service from its first command to its last.
      if (profile !== undefined || blocks.length > 0) throw new Error(`${file}:${i + 1}: the profile marker comes once, before the document's first shell block`)
      profile = p[1]!
      continue
    }
    const open = /^(`{3,})\s*([\w-]*)/.exec(lines[i]!)
    if (open === null) continue
    const fence = open[1]!
    let end = i + 1
    while (end < lines.length && !lines[end]!.startsWith(fence)) end++
    if (SHELL_LANGUAGES.includes(open[2]!)) {
      // The marker is the nearest non-blank line above the fence.
      let above = i - 1
      while (above >= 0 && lines[above]!.trim() === '') above--
      const m = above >= 0 ? MARKER.exec(lines[above]!.trim()) : null
      const own = m !== null && PROFILE.test(m[1]!) ? null : m
      const body = lines.slice(i + 1, end).join('\n')
      const session = open[2] === 'console' ? consoleScript(body) : undefined
      blocks.push({
        file,
        line: i + 2,
        text: session?.text ?? body,
        ...(session === undefined ? {} : { shown: session.shown }),
        marker: own === null ? { kind: 'run' } : markerOf(own[1]!, `${file}:${above + 1}`),
        profile: profile ?? 'A'
      })
    }
    i = end
  }
  return blocks
}

/** README.md, then every Markdown file under docs/ in path order: the order a reader goes. */
export function docFiles (root: string): string[] {
  const out: string[] = []
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory()) walk(join(dir, e.name))
      else if (e.name.endsWith('.md')) out.push(relative(root, join(dir, e.name)))
    }
  }
  walk(join(root, 'docs'))
  return ['README.md', ...out]
}

export function docBlocks (root: string): DocBlock[] {
  return docFiles(root).flatMap((f) => blocksOf(f, readFileSync(join(root, f), 'utf8')))
}
