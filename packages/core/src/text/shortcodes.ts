/**
 * Shortcodes. The only one the service knows, `[gallery]`, renders nothing:
 * there is no media library. `[[gallery]]` is the escaped form and prints
 * the shortcode itself. Both passes scan the text once (an unclosed
 * `[gallery ` must not make every later one search to the end again); they
 * give what the core's patterns give:
 *
 *   shortcodes: /(\[?)\[gallery(?![\w-])[^\]]*\](?:[^[]*?\[\/gallery\])?(\]?)/g
 *   unautop:    /<p>\s*(\[gallery\b[^\]]*\](?:[^[]*\[\/gallery\])?)\s*<\/p>/g -> '$1'
 */
import { isWordChar, NextIndex, skipSpace } from './scan.js'

const OPEN = '[gallery'
const CLOSE = '[/gallery]'

/** Where a shortcode whose opening tag ends with the `]` at `close` ends: after its `[/gallery]` when that is the next `[`. */
function enclosedEnd (text: string, close: number, nextBracket: NextIndex): number {
  const next = nextBracket.at(close + 1)
  return next >= 0 && text.startsWith(CLOSE, next) ? next + CLOSE.length : close + 1
}

export function doShortcodes (text: string): string {
  if (!text.includes(OPEN)) return text
  const nextClose = new NextIndex(text, ']')
  const nextBracket = new NextIndex(text, '[')
  let out = ''
  let from = 0
  let search = 0
  for (;;) {
    const at = text.indexOf(OPEN, search)
    if (at < 0) break
    const after = text[at + OPEN.length]
    if (isWordChar(after) || after === '-') {
      search = at + 1
      continue
    }
    const close = nextClose.at(at + OPEN.length)
    // No `]` left: no later shortcode can close either.
    if (close < 0) break
    const escapedOpen = at > from && text[at - 1] === '['
    const start = escapedOpen ? at - 1 : at
    let end = enclosedEnd(text, close, nextBracket)
    const escapedClose = text[end] === ']'
    if (escapedClose) end++
    out += text.slice(from, start)
    if (escapedOpen && escapedClose) out += text.slice(start + 1, end - 1)
    from = search = end
  }
  return out + text.slice(from)
}

export function stripShortcodes (text: string): string {
  return doShortcodes(text)
}

/** A paragraph holding nothing but a shortcode loses its `<p>`. */
export function shortcodeUnautop (text: string): string {
  if (!text.includes('<p>') || !text.includes(OPEN)) return text
  const nextClose = new NextIndex(text, ']')
  const nextBracket = new NextIndex(text, '[')
  // What follows a given `]` decides the match whatever paragraph it started in: remembered.
  let lastClose = -1
  let lastResult: [number, number] | null = null
  const ending = (close: number): [number, number] | null => {
    if (close === lastClose) return lastResult
    lastClose = close
    lastResult = null
    const enclosed = enclosedEnd(text, close, nextBracket)
    for (const groupEnd of enclosed === close + 1 ? [enclosed] : [enclosed, close + 1]) {
      const p = skipSpace(text, groupEnd)
      if (text.startsWith('</p>', p)) {
        lastResult = [groupEnd, p + 4]
        break
      }
    }
    return lastResult
  }
  let out = ''
  let from = 0
  let search = 0
  for (;;) {
    const at = text.indexOf('<p>', search)
    if (at < 0) break
    const code = skipSpace(text, at + 3)
    if (!text.startsWith(OPEN, code) || isWordChar(text[code + OPEN.length])) {
      search = at + 1
      continue
    }
    const close = nextClose.at(code + OPEN.length)
    if (close < 0) break
    const found = ending(close)
    if (found === null) {
      search = at + 1
      continue
    }
    out += text.slice(from, at) + text.slice(code, found[0])
    from = search = found[1]
  }
  return out + text.slice(from)
}
