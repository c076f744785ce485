/**
 * HTML filtering on save: callers without `unfiltered_html` (authors,
 * contributors) get title, content and excerpt filtered on create, update
 * and autosave; editors and administrators store what they wrote. Block
 * delimiters and other comments are kept.
 */
import t from 'tap'
import { withContentUsers } from './fixtures/content/harness.js'
import { testApp } from '../src/testing.js'
import { packageMeta } from './fixtures/package-meta.js'

const DIRTY = [
  '<!-- wp:paragraph {"className":"intro"} -->',
  '<p class="intro" onclick="steal()">Hello <strong>world</strong> &amp; <a href="https://example.com/?a=1" title="Ex" rel="noopener" target="_blank">link</a> <a href="javascript:alert(1)">bad</a></p>',
  '<!-- /wp:paragraph -->',
  '',
  '<!-- wp:html -->',
  '<script>alert(1)</script><iframe src="https://evil.example/"></iframe><style>p { color: red }</style><form action="/x"><input name="q"></form>',
  '<!-- /wp:html -->',
  '',
  '<!-- wp:image {"id":7} -->',
  '<figure class="wp-block-image"><img src="https://example.com/a.png" alt="A" width="10" onerror="x()"/><figcaption>Cap</figcaption></figure>',
  '<!-- /wp:image -->',
  '',
  '<!-- wp:separator /-->',
  '<p style="color: red; background: url(javascript:alert(1))">styled</p><img src="data:image/png;base64,AAAA" alt="d"><!--more--><p>after</p>'
].join('\n')

const CLEAN = [
  '<!-- wp:paragraph {"className":"intro"} -->',
  '<p class="intro">Hello <strong>world</strong> &amp; <a href="https://example.com/?a=1" title="Ex" rel="noopener" target="_blank">link</a> <a>bad</a></p>',
  '<!-- /wp:paragraph -->',
  '',
  '<!-- wp:html -->',
  '',
  '<!-- /wp:html -->',
  '',
  '<!-- wp:image {"id":7} -->',
  '<figure class="wp-block-image"><img src="https://example.com/a.png" alt="A" width="10" /><figcaption>Cap</figcaption></figure>',
  '<!-- /wp:image -->',
  '',
  '<!-- wp:separator /-->',
  '<p style="color: red">styled</p><img alt="d" /><!--more--><p>after</p>'
].join('\n')

const DIRTY_TITLE = '<b>Bold</b> <span class="x">plain</span><script>alert(1)</script> <a href="https://example.com/" onclick="x()">ok</a> <img src="x.png">'
const CLEAN_TITLE = '<b>Bold</b> plain <a href="https://example.com/">ok</a> '

const DIRTY_EXCERPT = '<em>Short</em> <iframe src="https://evil.example/"></iframe><a href="data:text/html,x">d</a>'
const CLEAN_EXCERPT = '<em>Short</em> <a>d</a>'

t.test('HTML filtering on save', async (t) => {
  const h = await withContentUsers(await testApp({ packages: [packageMeta], namespaces: ['cms/v2'] }))
  t.teardown(() => h.app.close())
  const { admin, editor, author, contributor } = h.users
  const call = h.call
  const edit = async (path: string, as = admin): Promise<any> => (await call('GET', path, { as, query: { context: 'edit' } })).body

  t.test("an author's markup is filtered on create; allowed markup and block comments stay", async (t) => {
    const res = await call('POST', '/cms/v2/posts', { as: author, body: { title: DIRTY_TITLE, content: DIRTY, excerpt: DIRTY_EXCERPT } })
    t.equal(res.status, 201)
    t.equal(res.body.content.raw, CLEAN)
    t.equal(res.body.title.raw, CLEAN_TITLE)
    t.equal(res.body.excerpt.raw, CLEAN_EXCERPT)
    const stored = await edit(`/cms/v2/posts/${res.body.id}`, author)
    t.equal(stored.content.raw, CLEAN, 'stored filtered')
    t.equal(stored.content.block_version, 1, 'still block content')
    t.notMatch(stored.content.rendered, /script|onclick|javascript:|iframe|<style|onerror|data:/)
    t.match(stored.content.rendered, '<figcaption>Cap</figcaption>')
  })

  t.test('a contributor is filtered too, object forms of the fields included', async (t) => {
    const res = await call('POST', '/cms/v2/posts', { as: contributor, body: { title: { raw: DIRTY_TITLE }, content: { raw: DIRTY } } })
    t.equal(res.status, 201)
    t.equal(res.body.content.raw, CLEAN)
    t.equal(res.body.title.raw, CLEAN_TITLE)
  })

  t.test('editors and administrators store what they wrote', async (t) => {
    for (const who of [editor, admin]) {
      const res = await call('POST', '/cms/v2/posts', { as: who, body: { title: DIRTY_TITLE, content: DIRTY, excerpt: DIRTY_EXCERPT } })
      t.equal(res.status, 201)
      const stored = await edit(`/cms/v2/posts/${res.body.id}`, who)
      t.equal(stored.content.raw, DIRTY, `${who.login}: content as written`)
      t.equal(stored.title.raw, DIRTY_TITLE, `${who.login}: title as written`)
      t.equal(stored.excerpt.raw, DIRTY_EXCERPT, `${who.login}: excerpt as written`)
    }
    const page = await call('POST', '/cms/v2/pages', { as: editor, body: { title: DIRTY_TITLE, content: DIRTY } })
    t.equal(page.status, 201)
    t.equal((await edit(`/cms/v2/pages/${page.body.id}`)).content.raw, DIRTY, 'pages alike')
  })

  t.test('updates filter by who writes, not by who wrote before', async (t) => {
    const created = (await call('POST', '/cms/v2/posts', { as: author, body: { title: 'Mine', content: 'plain', status: 'publish' } })).body
    const updated = await call('POST', `/cms/v2/posts/${created.id}`, { as: author, body: { content: DIRTY, excerpt: DIRTY_EXCERPT } })
    t.equal(updated.status, 200)
    t.equal(updated.body.content.raw, CLEAN)
    t.equal(updated.body.excerpt.raw, CLEAN_EXCERPT)
    t.equal(updated.body.title.raw, 'Mine', 'fields not sent are untouched')
    const revisions = (await call('GET', `/cms/v2/posts/${created.id}/revisions`, { as: author, query: { context: 'edit' } })).body
    t.equal(revisions[0].content.raw, CLEAN, 'the revision holds the filtered text')

    const byEditor = await call('PUT', `/cms/v2/posts/${created.id}`, { as: editor, body: { content: DIRTY } })
    t.equal(byEditor.status, 200)
    t.equal(byEditor.body.content.raw, DIRTY, "an editor's update of the author's post is kept as written")
  })

  t.test('autosaves are filtered, in place and as autosave revisions', async (t) => {
    const draft = (await call('POST', '/cms/v2/posts', { as: author, body: { title: 'Draft', content: 'first' } })).body
    const inPlace = await call('POST', `/cms/v2/posts/${draft.id}/autosaves`, { as: author, body: { title: DIRTY_TITLE, content: DIRTY } })
    t.equal(inPlace.status, 200)
    t.equal(inPlace.body.id, draft.id, 'the draft itself')
    t.equal((await edit(`/cms/v2/posts/${draft.id}`, author)).content.raw, CLEAN)
    t.equal((await edit(`/cms/v2/posts/${draft.id}`, author)).title.raw, CLEAN_TITLE)

    const live = (await call('POST', '/cms/v2/posts', { as: author, body: { title: 'Live', content: 'text', status: 'publish' } })).body
    const autosave = await call('POST', `/cms/v2/posts/${live.id}/autosaves`, { as: author, body: { content: DIRTY, excerpt: DIRTY_EXCERPT } })
    t.equal(autosave.status, 200)
    t.not(autosave.body.id, live.id)
    t.equal(autosave.body.content.raw, CLEAN)
    t.equal(autosave.body.excerpt.raw, CLEAN_EXCERPT)
    t.equal((await edit(`/cms/v2/posts/${live.id}`, author)).content.raw, 'text', 'the post is untouched')

    const byEditor = await call('POST', `/cms/v2/posts/${live.id}/autosaves`, { as: editor, body: { content: DIRTY } })
    t.equal(byEditor.body.content.raw, DIRTY, "an editor's autosave is kept as written")
  })

  t.test('filtering happens before the empty-content check', async (t) => {
    const res = await call('POST', '/cms/v2/posts', { as: author, body: { title: '<script>alert(1)</script>', content: '<iframe src="https://evil.example/"></iframe>' } })
    t.equal(res.status, 400)
    t.equal(res.body.code, 'empty_content')
    const editorRes = await call('POST', '/cms/v2/posts', { as: editor, body: { title: '<script>alert(1)</script>' } })
    t.equal(editorRes.status, 201, 'an editor may store it')
  })

  t.test('comments: kept, checked inside, never trusted inside attributes', async (t) => {
    const cases: Array<[string, string]> = [
      ['a<!-- note <script>x</script><b>b</b> --> z', 'a<!-- note <b>b</b> --> z'],
      ['<!-- a--b ---><!---->x', '<!-- a-b -->x'],
      ['<a title=\'<!-- wp:x {"a":" onmouseover=alert(1) b="} -->\'>t</a>',
        '<a title="&lt;!-- wp:x {&quot;a&quot;:&quot; onmouseover=alert(1) b=&quot;} --&gt;">t</a>'],
      ['<textarea><!-- c --></textarea>', '<textarea>&lt;!-- c --&gt;</textarea>'],
      ['x<script><!-- wp:paragraph --></script>y', 'xy']
    ]
    for (const [input, expected] of cases) {
      const res = await call('POST', '/cms/v2/posts', { as: author, body: { title: 'Comments', content: input } })
      t.equal(res.status, 201)
      t.equal(res.body.content.raw, expected, input)
    }
  })

  t.test('allowed markup survives untouched', async (t) => {
    const kept = [
      '<h2 class="wp-block-heading" id="top">Head</h2>',
      '<ul class="list"><li>One</li><li>Two</li></ul><ol start="3" reversed><li>Three</li></ol>',
      '<blockquote cite="https://example.com/"><p>Quote</p><cite>Someone</cite></blockquote>',
      '<table class="t"><thead><tr><th scope="col">H</th></tr></thead><tbody><tr><td colspan="2">D</td></tr></tbody></table>',
      '<pre class="wp-block-code"><code>const a = 1 &lt; 2;</code></pre>',
      '<div class="x" data-align="wide" aria-label="Box" role="note" hidden><span style="font-size: 12px;color:#123456">s</span></div>',
      '<p style="--custom-gap:4px;width:calc(100% - (2 * 3px));background-image:linear-gradient(red, blue)">v</p>',
      '<a href="mailto:me@example.com">m</a> <a href="tel:+123">t</a> <a href="/relative#x">r</a> <a href="//cdn.example.com/x">p</a>',
      '<details open><summary>S</summary>D</details> a &nbsp;b'
    ]
    for (const html of kept) {
      const res = await call('POST', '/cms/v2/posts', { as: author, body: { title: 'Kept', content: html } })
      t.equal(res.status, 201)
      t.equal(res.body.content.raw, html, html)
    }
  })

  t.test('unsafe styles and URLs go, the rest of the element stays', async (t) => {
    const cases: Array<[string, string]> = [
      ['<p style="color:red;x:expression(alert(1));width:10px}">a</p>', '<p style="color:red">a</p>'],
      ['<div style="background-image:url(https://example.com/a.png)">a</div>', '<div style="background-image:url(https://example.com/a.png)">a</div>'],
      ['<div style="cursor:url(javascript:alert(1))">a</div>', '<div>a</div>'],
      ['<a href=" JaVaScRiPt:alert(1)">a</a><a href="vbscript:x">b</a>', '<a>a</a><a>b</a>'],
      ['<img src="https://example.com/a.png" srcset="x 1x" alt="">', '<img src="https://example.com/a.png" alt="" />'],
      ['<p onmouseover="x()" onClick="y()">a</p>', '<p>a</p>'],
      ['<object data="x.pdf" type="application/pdf"></object><embed src="x"><svg><script>1</script></svg>b', 'b']
    ]
    for (const [input, expected] of cases) {
      const res = await call('POST', '/cms/v2/posts', { as: author, body: { title: 'Unsafe', content: input } })
      t.equal(res.status, 201)
      t.equal(res.body.content.raw, expected, input)
    }
  })
})
