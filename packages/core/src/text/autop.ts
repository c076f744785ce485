/**
 * Paragraphs and line breaks for classic (non-block) content: the core's
 * `autop` rules, step for step as the editor's JavaScript port does them,
 * with its output. The port's regular expressions that backtrack
 * super-linearly are replaced by scans that give the same result:
 * whitespace before a tag (`\s*<option`: every start inside a long run of
 * spaces reread the run), tags with no `>` after them (`<object[^>]*>`),
 * elements with no end tag (`<script[\s\S]*?<\/script>`) and spaces with no
 * newline (`\s*\n`). Each pass reads the text a bounded number of times.
 */
import { NextIndex, NextMatch, skipSpace } from './scan.js'

const ALL_BLOCKS = '(?:table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|blockquote|address|math|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|footer|nav|figure|figcaption|details|menu|summary)'

const BLOCK_OPEN = new RegExp(`(<${ALL_BLOCKS}[\\s/>])`, 'g')
const BLOCK_CLOSE = new RegExp(`(</${ALL_BLOCKS}>)`, 'g')
/** `</?block` as a token (what `</?block[^>]*>` starts with). */
const BLOCK_TAG_START = new RegExp(`</?${ALL_BLOCKS}`, 'g')

/**
 * Splits HTML into text and tags (odd entries are tags, comments or CDATA),
 * as the core's `wp_html_split` pattern does: a comment runs to `-->`, a
 * CDATA section to `]]>`, a tag to its first `>` (or the end of the text).
 */
function htmlSplit (text: string): string[] {
  const parts: string[] = []
  let from = 0
  for (;;) {
    const lt = text.indexOf('<', from)
    if (lt < 0) break
    let end: number
    if (text.startsWith('!--', lt + 1)) {
      // `!(?:-(?!->)[^\-]*)*(?:-->)?`
      end = lt + 2
      while (text[end] === '-' && !text.startsWith('->', end + 1)) {
        end++
        const dash = text.indexOf('-', end)
        end = dash < 0 ? text.length : dash
      }
      if (text.startsWith('-->', end)) end += 3
    } else if (text.startsWith('![CDATA[', lt + 1)) {
      // `!\[CDATA\[[^\]]*` and an optional `]]>` (the lazy middle part takes nothing).
      const bracket = text.indexOf(']', lt + 9)
      end = bracket < 0 ? text.length : bracket
      if (text.startsWith(']]>', end)) end += 3
    } else {
      const gt = text.indexOf('>', lt + 1)
      end = gt < 0 ? text.length : gt + 1
    }
    parts.push(text.slice(from, lt), text.slice(lt, end))
    from = end
  }
  if (from < text.length) parts.push(text.slice(from))
  return parts
}

/** Newlines inside tags become ` <!-- wpnl --> ` so the paragraph passes do not see them. */
function newlinesInTags (text: string): string {
  const parts = htmlSplit(text)
  let changed = false
  for (let i = 1; i < parts.length; i += 2) {
    if (parts[i]!.includes('\n')) {
      parts[i] = parts[i]!.split('\n').join(' <!-- wpnl --> ')
      changed = true
    }
  }
  return changed ? parts.join('') : text
}

/**
 * `\s*` + `tag` + `[^>]*>` + (with `spaceAfter`) `\s*`, replaced by the tag
 * alone: each candidate's `>` is found once for all the candidates before
 * it, and whitespace is only taken where a run starts.
 */
function trimAroundTags (text: string, tag: RegExp, opts: { spaceBefore: boolean, spaceAfter: boolean, closers?: RegExp }): string {
  const nextEnd = new NextMatch(text, opts.closers ?? />/g)
  let out = ''
  let from = 0
  tag.lastIndex = 0
  for (let m = tag.exec(text); m !== null; m = tag.exec(text)) {
    const end = nextEnd.at(m.index + m[0].length)?.index ?? -1
    // No `>` after this tag: none after any later one either.
    if (end < 0) break
    const start = opts.spaceBefore ? spaceStart(text, m.index, from) : m.index
    const after = opts.spaceAfter ? skipSpace(text, end + 1) : end + 1
    out += text.slice(from, start) + text.slice(m.index, end + 1)
    from = tag.lastIndex = after
  }
  return out + text.slice(from)
}

/** Where the whitespace run that ends at `at` starts, not before `from`. */
function spaceStart (text: string, at: number, from: number): number {
  let start = at
  while (start > from && /\s/.test(text[start - 1]!)) start--
  return start
}

/** `\s*` + a token, replaced by the token (the whitespace before it goes). */
function trimBefore (text: string, token: RegExp): string {
  let out = ''
  let from = 0
  token.lastIndex = 0
  for (let m = token.exec(text); m !== null; m = token.exec(text)) {
    out += text.slice(from, spaceStart(text, m.index, from)) + m[0]
    from = m.index + m[0].length
  }
  return out + text.slice(from)
}

/** `/<p>(<li.+?)<\/p>/g` -> `$1`, reading each line once. */
function unwrapListItems (text: string): string {
  const nextClose = new NextIndex(text, '</p>')
  const nextLine = new NextMatch(text, /[\n\r\u2028\u2029]/g)
  let out = ''
  let from = 0
  let search = 0
  for (;;) {
    const at = text.indexOf('<p><li', search)
    if (at < 0) break
    const close = nextClose.at(at + 7)
    if (close < 0) break
    const lineEnd = nextLine.at(at + 6)?.index ?? -1
    if (lineEnd >= 0 && lineEnd < close) {
      // `.` stops at the line end: every candidate before it fails the same way.
      search = lineEnd + 1
      continue
    }
    out += text.slice(from, at) + text.slice(at + 3, close)
    from = search = close + 4
  }
  return out + text.slice(from)
}

/**
 * `(</?block[^>]*>)\s*` + `follower` -> `$1`: the `>` after a candidate and
 * what follows that `>` are the same for every candidate before it, so each
 * is looked at once.
 */
function blockTagBefore (text: string, follower: string): string {
  const nextGt = new NextIndex(text, '>')
  let lastGt = -1
  let lastEnd = -1
  let out = ''
  let from = 0
  BLOCK_TAG_START.lastIndex = 0
  for (let m = BLOCK_TAG_START.exec(text); m !== null; m = BLOCK_TAG_START.exec(text)) {
    const gt = nextGt.at(m.index + m[0].length)
    if (gt < 0) break
    if (gt !== lastGt) {
      lastGt = gt
      const p = skipSpace(text, gt + 1)
      lastEnd = text.startsWith(follower, p) ? p + follower.length : -1
    }
    if (lastEnd < 0) {
      BLOCK_TAG_START.lastIndex = m.index + 1
      continue
    }
    out += text.slice(from, m.index) + text.slice(m.index, gt + 1)
    from = BLOCK_TAG_START.lastIndex = lastEnd
  }
  return out + text.slice(from)
}

const PRESERVED = /<(script|style|svg|math)/g

/** Newlines inside script, style, svg and math are kept through the line-break pass. */
function protectNewlines (text: string): string {
  const closing: Record<string, number> = {}
  let out = ''
  let from = 0
  PRESERVED.lastIndex = 0
  for (let m = PRESERVED.exec(text); m !== null; m = PRESERVED.exec(text)) {
    const name = m[1]!
    const endTag = `</${name}>`
    let close = closing[name]
    if (close === undefined || (close >= 0 && close < m.index + m[0].length)) {
      close = closing[name] = text.indexOf(endTag, m.index + m[0].length)
    }
    if (close < 0) {
      PRESERVED.lastIndex = m.index + 1
      continue
    }
    const end = close + endTag.length
    out += text.slice(from, m.index) + text.slice(m.index, end).replace(/\n/g, '<WPPreserveNewline />')
    from = PRESERVED.lastIndex = end
  }
  return out + text.slice(from)
}

/**
 * `/(<br \/>)?\s*\n/g` with `(a, b) => b ? a : '<br />\n'`: in each run of
 * whitespace, everything up to its last newline becomes one `<br />\n`,
 * unless a `<br />` stands right before the run.
 */
function lineBreaks (text: string): string {
  let out = ''
  let from = 0
  const runs = /\s+/g
  for (let m = runs.exec(text); m !== null; m = runs.exec(text)) {
    const last = m[0].lastIndexOf('\n')
    if (last < 0) continue
    const start = m.index
    const end = start + last + 1
    if (start - 6 >= from && text.startsWith('<br />', start - 6)) {
      out += text.slice(from, end)
    } else {
      out += text.slice(from, start) + '<br />\n'
    }
    from = end
  }
  return out + text.slice(from)
}

const PRE_NAME = /<pre wp-pre-tag-(\d+)><\/pre>/g

export function autop (text: string, br = true): string {
  const preTags: string[] = []
  if (text.trim() === '') return ''
  text = text + '\n'

  // Preformatted blocks are set aside and put back at the end.
  if (text.includes('<pre')) {
    const textParts = text.split('</pre>')
    const lastText = textParts.pop()!
    text = ''
    for (let i = 0; i < textParts.length; i++) {
      const textPart = textParts[i]!
      const start = textPart.indexOf('<pre')
      if (start === -1) {
        text += textPart
        continue
      }
      preTags[i] = textPart.slice(start) + '</pre>'
      text += textPart.slice(0, start) + `<pre wp-pre-tag-${i}></pre>`
    }
    text += lastText
  }

  text = text.replace(/<br\s*\/?>\s*<br\s*\/?>/g, '\n\n')
  text = text.replace(BLOCK_OPEN, '\n\n$1')
  text = text.replace(BLOCK_CLOSE, '$1\n\n')
  text = text.replace(/\r\n|\r/g, '\n')
  text = newlinesInTags(text)

  if (text.includes('<option')) {
    text = trimBefore(text, /<option/g)
    text = text.replace(/<\/option>\s*/g, '</option>')
  }
  if (text.includes('</object>')) {
    text = trimAroundTags(text, /<object/g, { spaceBefore: false, spaceAfter: true })
    text = trimBefore(text, /<\/object>/g)
    text = trimAroundTags(text, /<\/?(?:param|embed)/g, { spaceBefore: true, spaceAfter: true })
  }
  if (text.includes('<source') || text.includes('<track')) {
    text = trimAroundTags(text, /[<[](?:audio|video)/g, { spaceBefore: false, spaceAfter: true, closers: /[>\]]/g })
    text = trimBefore(text, /[<[]\/(?:audio|video)[>\]]/g)
    text = trimAroundTags(text, /<(?:source|track)/g, { spaceBefore: true, spaceAfter: true })
  }
  if (text.includes('<figcaption')) {
    text = trimFirst(text)
    text = text.replace(/<\/figcaption>\s*/, '</figcaption>')
  }

  text = text.replace(/\n\n+/g, '\n\n')
  const texts = text.split(/\n\s*\n/).filter(Boolean)
  text = ''
  for (const piece of texts) text += '<p>' + piece.replace(/^\n*|\n*$/g, '') + '</p>\n'

  text = text.replace(/<p>\s*<\/p>/g, '')
  text = text.replace(/<p>([^<]+)<\/(div|address|form)>/g, '<p>$1</p></$2>')
  text = text.replace(new RegExp(`<p>\\s*(</?${ALL_BLOCKS}[^>]*>)\\s*</p>`, 'g'), '$1')
  text = unwrapListItems(text)
  text = text.replace(/<p><blockquote([^>]*)>/gi, '<blockquote$1><p>')
  text = text.replace(/<\/blockquote><\/p>/g, '</p></blockquote>')
  text = text.replace(new RegExp(`<p>\\s*(</?${ALL_BLOCKS}[^>]*>)`, 'g'), '$1')
  text = blockTagBefore(text, '</p>')

  if (br) {
    text = protectNewlines(text)
    text = text.replace(/<br>|<br\/>/g, '<br />')
    text = lineBreaks(text)
    text = text.replace(/<WPPreserveNewline \/>/g, '\n')
  }

  text = blockTagBefore(text, '<br />')
  text = text.replace(/<br \/>(\s*<\/?(?:p|li|div|dl|dd|dt|th|pre|td|ul|ol)[^>]*>)/g, '$1')
  text = text.replace(/\n<\/p>$/g, '</p>')

  if (preTags.length > 0) text = text.replace(PRE_NAME, (name, i: string) => preTags[Number(i)] ?? name)
  if (text.includes('<!-- wpnl -->')) text = text.replace(/\s?<!-- wpnl -->\s?/g, '\n')
  return text
}

/** The first `\s*(<figcaption[^>]*>)` -> `$1` (one replacement, as the core does). */
function trimFirst (text: string): string {
  const at = text.indexOf('<figcaption')
  // No `>` after the first one: none after any later one either.
  if (at < 0 || text.indexOf('>', at + 11) < 0) return text
  return text.slice(0, spaceStart(text, at, 0)) + text.slice(at)
}
