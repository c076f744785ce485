/**
 * Block delimiters (`<!-- wp:name {"attrs"} -->`, `<!-- /wp:name -->`,
 * `<!-- wp:name /-->`) parsed into the tree the editor's default parser
 * gives. Its tokenizer pattern rescans to the end of the document from every
 * `<!-- wp:x {` that no `} -->` follows (seconds for 100 KB); here each
 * delimiter is read by a scan, the end of the attributes found once for all
 * delimiters before it.
 */
import { NextIndex, skipSpace } from './scan.js'

export interface Block {
  blockName: string | null
  attrs: Record<string, unknown> | null
  innerBlocks: Block[]
  innerHTML: string
  /** HTML chunks, `null` where an inner block stands. */
  innerContent: Array<string | null>
}

type Token =
  | { type: 'none' }
  | { type: 'void' | 'opener' | 'closer', name: string, attrs: Record<string, unknown> | null, start: number, length: number }

interface Frame {
  block: Block
  tokenStart: number
  tokenLength: number
  prevOffset: number
  leadingHtmlStart: number | null
}

const block = (blockName: string | null, attrs: Record<string, unknown> | null, innerHTML = ''): Block =>
  ({ blockName, attrs, innerBlocks: [], innerHTML, innerContent: blockName === null ? [innerHTML] : [] })

function parseAttrs (json: string): Record<string, unknown> | null {
  try {
    return JSON.parse(json) as Record<string, unknown>
  } catch {
    return null
  }
}

const isNameStart = (c: string | undefined): boolean => c !== undefined && c >= 'a' && c <= 'z'
const isNameChar = (c: string | undefined): boolean => isNameStart(c) || (c !== undefined && ((c >= '0' && c <= '9') || c === '_' || c === '-'))

/** The end of `[a-z][a-z0-9_-]*` at `i`, or -1. */
function nameEnd (doc: string, i: number): number {
  if (!isNameStart(doc[i])) return -1
  let end = i + 1
  while (isNameChar(doc[end])) end++
  return end
}

/**
 * The delimiters of a document in order, as the pattern
 * `<!--\s+(\/)?wp:([a-z][a-z0-9_-]*\/)?([a-z][a-z0-9_-]*)\s+({…}\s+)?(\/)?-->`
 * finds them; the attributes run to the first `}` followed by `\s+\/?-->`.
 */
class Tokenizer {
  private readonly opens: NextIndex
  private readonly braces: NextIndex
  /** The first `}` ending attributes at or after `attrsFrom` (-1: none). */
  private attrsFrom = -1
  private attrsEnd = -1

  constructor (private readonly doc: string) {
    this.opens = new NextIndex(doc, '<!--')
    this.braces = new NextIndex(doc, '}')
  }

  private attrsClose (from: number): number {
    if (this.attrsFrom >= 0 && from >= this.attrsFrom && (this.attrsEnd < 0 || from <= this.attrsEnd)) return this.attrsEnd
    this.attrsFrom = from
    let at = this.braces.at(from)
    while (at >= 0) {
      const s = skipSpace(this.doc, at + 1)
      if (s > at + 1 && (this.doc.startsWith('-->', s) || this.doc.startsWith('/-->', s))) break
      at = this.braces.at(at + 1)
    }
    this.attrsEnd = at
    return at
  }

  private tokenAt (p: number): Token | null {
    const doc = this.doc
    let i = skipSpace(doc, p + 4)
    if (i === p + 4) return null
    const closer = doc[i] === '/'
    if (closer) i++
    if (!doc.startsWith('wp:', i)) return null
    i += 3
    const first = nameEnd(doc, i)
    if (first < 0) return null
    let name = `core/${doc.slice(i, first)}`
    let end = first
    if (doc[first] === '/') {
      const second = nameEnd(doc, first + 1)
      if (second < 0) return null
      name = doc.slice(i, second)
      end = second
    }
    const s = skipSpace(doc, end)
    if (s === end) return null
    let attrs: Record<string, unknown> | null = {}
    let rest = s
    if (doc[s] === '{') {
      const close = this.attrsClose(s + 1)
      if (close < 0) return null
      rest = skipSpace(doc, close + 1)
      attrs = parseAttrs(doc.slice(s, rest))
    }
    const isVoid = doc[rest] === '/'
    if (isVoid) rest++
    if (!doc.startsWith('-->', rest)) return null
    const length = rest + 3 - p
    if (isVoid) return { type: 'void', name, attrs, start: p, length }
    if (closer) return { type: 'closer', name, attrs: null, start: p, length }
    return { type: 'opener', name, attrs, start: p, length }
  }

  next (from: number): Token {
    for (let p = this.opens.at(from); p >= 0; p = this.opens.at(p + 1)) {
      const token = this.tokenAt(p)
      if (token !== null) return token
    }
    return { type: 'none' }
  }
}

export function parseBlocks (doc: string): Block[] {
  const tokens = new Tokenizer(doc)
  const output: Block[] = []
  const stack: Frame[] = []
  let offset = 0

  const addFreeform = (): void => {
    if (doc.length > offset) output.push(block(null, {}, doc.slice(offset)))
  }
  const addInnerBlock = (inner: Block, tokenStart: number, tokenLength: number, lastOffset?: number): void => {
    const parent = stack[stack.length - 1]!
    parent.block.innerBlocks.push(inner)
    const html = doc.slice(parent.prevOffset, tokenStart)
    if (html !== '') {
      parent.block.innerHTML += html
      parent.block.innerContent.push(html)
    }
    parent.block.innerContent.push(null)
    parent.prevOffset = lastOffset ?? tokenStart + tokenLength
  }
  const addBlockFromStack = (endOffset?: number): void => {
    const { block: done, leadingHtmlStart, prevOffset, tokenStart } = stack.pop()!
    const html = endOffset === undefined ? doc.slice(prevOffset) : doc.slice(prevOffset, endOffset)
    if (html !== '') {
      done.innerHTML += html
      done.innerContent.push(html)
    }
    if (leadingHtmlStart !== null) output.push(block(null, {}, doc.slice(leadingHtmlStart, tokenStart)))
    output.push(done)
  }

  let from = 0
  for (;;) {
    const token = tokens.next(from)
    if (token.type === 'none') {
      if (stack.length === 0) addFreeform()
      while (stack.length > 0) addBlockFromStack()
      return output
    }
    from = token.start + token.length
    const leadingHtmlStart = token.start > offset ? offset : null
    switch (token.type) {
      case 'void':
        if (stack.length === 0) {
          if (leadingHtmlStart !== null) output.push(block(null, {}, doc.slice(leadingHtmlStart, token.start)))
          output.push(block(token.name, token.attrs))
        } else {
          addInnerBlock(block(token.name, token.attrs), token.start, token.length)
        }
        break
      case 'opener':
        stack.push({ block: block(token.name, token.attrs), tokenStart: token.start, tokenLength: token.length, prevOffset: from, leadingHtmlStart })
        break
      case 'closer': {
        if (stack.length === 0) {
          addFreeform()
          return output
        }
        if (stack.length === 1) {
          addBlockFromStack(token.start)
          break
        }
        const top = stack.pop()!
        const html = doc.slice(top.prevOffset, token.start)
        top.block.innerHTML += html
        top.block.innerContent.push(html)
        top.prevOffset = from
        addInnerBlock(top.block, top.tokenStart, top.tokenLength, from)
        break
      }
    }
    offset = from
  }
}
