const y = require('yoastseo')
const Researcher = require('yoastseo/build/languageProcessing/languages/en/Researcher').default
const fs = require('fs')
const html = fs.readFileSync(process.argv[2], 'utf8')
const t0 = Date.now()
const paper = new y.Paper(html, { keyword: 'winter boots', title: 'Winter boots: how to choose a warm pair', titleWidth: 450, description: 'Winter boots guide: how to choose winter boots that keep your feet warm and dry all season, from soles and linings to fit and care.', slug: 'winter-boots', locale: 'en_US', permalink: 'http://cms.test/winter-boots/' })
const r = new Researcher(paper)
for (const [n, A] of [['seo', y.assessors.SEOAssessor], ['read', y.assessors.ContentAssessor], ['incl', y.assessors.InclusiveLanguageAssessor]]) {
  const a = new A(r); a.assess(paper); console.log(n, a.calculateOverallScore())
  for (const res of a.getValidResults()) console.log('  ', res._identifier, res.score, (res.text||'').replace(/<[^>]+>/g,'').slice(0,90))
}
console.log('readingTime', r.getResearch('readingTime'))
console.log(Date.now() - t0, 'ms')
