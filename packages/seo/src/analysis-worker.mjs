// The text analysis, run in a worker thread of the pool (analysis.ts): the
// `yoastseo` library's English researcher and its SEO, content
// (readability) and inclusive-language assessors over one post. Plain
// JavaScript so a worker needs no TypeScript loader.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { Paper, assessors } = require('yoastseo')
const Researcher = require('yoastseo/build/languageProcessing/languages/en/Researcher').default

/**
 * @param {{ html: string, keyword: string, title: string, titleWidth: number, description: string, slug: string, locale: string, permalink: string, cornerstone: boolean }} input
 * @returns {{ seo: number | null, readability: number, inclusive: number, readingTime: number | null }}
 */
export default function analyse (input) {
  const paper = new Paper(input.html, {
    keyword: input.keyword,
    title: input.title,
    titleWidth: input.titleWidth,
    description: input.description,
    slug: input.slug,
    locale: input.locale,
    permalink: input.permalink
  })
  const researcher = new Researcher(paper)
  const score = (Assessor) => {
    const assessor = new Assessor(researcher)
    assessor.assess(paper)
    return Math.round(assessor.calculateOverallScore())
  }
  const readingTime = Number(researcher.getResearch('readingTime')) || 0
  // An empty text is not analysed (the editor shows no readability score for it).
  const hasText = readingTime > 0 || input.html.replace(/<[^>]*>/g, '').trim() !== ''
  return {
    seo: input.keyword === '' ? null : score(input.cornerstone ? assessors.CornerstoneSEOAssessor : assessors.SEOAssessor),
    readability: hasText ? score(input.cornerstone ? assessors.CornerstoneContentAssessor : assessors.ContentAssessor) : 0,
    inclusive: hasText ? score(assessors.InclusiveLanguageAssessor) : 0,
    // No text, no reading time: the post counts as not analysed for readability.
    readingTime: hasText ? readingTime : null
  }
}
