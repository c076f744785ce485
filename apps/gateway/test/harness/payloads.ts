/**
 * Payload lists kept as data (test/data/*.txt): one payload a line, `#`
 * starts a comment line, blank lines are skipped. With `unescape`, the
 * escapes \r \n \t \\ and \uXXXX are turned into the characters they name
 * (for payloads that carry control characters).
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export function readPayloads (name: string, opts: { unescape?: boolean } = {}): string[] {
  const text = readFileSync(fileURLToPath(new URL(`../data/${name}`, import.meta.url)), 'utf8')
  return text.split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => opts.unescape === true ? unescapePayload(line) : line)
}

export function unescapePayload (s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|[rnt\\])/g, (_, e: string) => {
    if (e.startsWith('u')) return String.fromCharCode(parseInt(e.slice(1), 16))
    return e === 'r' ? '\r' : e === 'n' ? '\n' : e === 't' ? '\t' : '\\'
  })
}
