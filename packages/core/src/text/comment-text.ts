/**
 * `content.rendered` of a comment, as the core's `comment_text` makes it:
 * bare URLs become links (marked `nofollow ugc`, as links in comments are),
 * then quotes and dashes, stray ampersands, smilies (when the site converts
 * them) and paragraphs. Linear in the text: one pass per step.
 */
// The modules themselves, not the content index: the text pool's threads load this file (text-tasks.ts).
// Here in content, beside the renderers it is made of, so content does not import the comments folder.
import { autop } from './autop.js'
import { convertChars, convertSmilies, splitTags } from './render.js'
import { texturize } from './texturize.js'

const URL_RE = /(^|[\s(])(https?:\/\/[^\s<>"'()]+(?:\([^\s<>"'()]*\)[^\s<>"'()]*)*)/gi
const TRAILING = /[.,;:!?]+$/

/** Bare http(s) URLs in text (not in tags, not inside links) as links. */
export function makeClickable (html: string): string {
  let inLink = 0
  let ignored = ''
  return splitTags(html).map((part) => {
    if (part.startsWith('<')) {
      const name = /^<\/?([a-z0-9]+)/i.exec(part)?.[1]?.toLowerCase()
      if (name === 'a') inLink += part.startsWith('</') ? -1 : 1
      if (ignored === '' && (name === 'code' || name === 'pre' || name === 'script' || name === 'style') && !part.startsWith('</')) ignored = name
      else if (ignored !== '' && part === `</${ignored}>`) ignored = ''
      if (inLink < 0) inLink = 0
      return part
    }
    if (inLink > 0 || ignored !== '' || !/https?:\/\//i.test(part)) return part
    return part.replace(URL_RE, (_m, before: string, url: string) => {
      const tail = TRAILING.exec(url)?.[0] ?? ''
      const href = tail === '' ? url : url.slice(0, -tail.length)
      return `${before}<a href="${href.replace(/&(?!amp;)/g, '&amp;')}" rel="nofollow ugc">${href}</a>${tail}`
    })
  }).join('')
}

export function renderCommentText (raw: string, smilies: boolean): string {
  if (raw === '') return ''
  let s = makeClickable(raw)
  s = texturize(s)
  s = convertChars(s)
  if (smilies) s = convertSmilies(s)
  return autop(s)
}
