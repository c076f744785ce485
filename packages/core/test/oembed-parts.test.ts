/**
 * test-all: alone (it measures its own process's CPU time: scripts/test-run.mjs runs it in a
 * process of its own, not in a batch where another file's leftovers could add to the figure).
 * The pieces of the oEmbed module that decide on their own: provider
 * matching, discovery links, the XML writer and the markup helpers.
 */
import t from 'tap'
import { cpuMs } from './fixtures/timing.js'
import { providerList, providersFromEnv } from '../src/oembed/providers.js'
import { discoveryLink, dataHtml } from '../src/oembed/remote.js'
import { toOembedXml } from '../src/oembed/xml.js'
import { escAttr, escUrl, sandboxedFrame } from '../src/oembed/html.js'
import { embedSize, localReference } from '../src/oembed/local.js'
import { absint } from '../src/oembed/index.js'

t.test('provider schemes', async (t) => {
  const list = providerList([{
    provider_name: 'Video',
    endpoints: [{ schemes: ['https://*.video.example/watch*', 'https://v.example/*'], url: 'https://video.example/oembed.{format}' }]
  }])
  t.same(list.match('https://www.video.example/watch?v=1'), { name: 'Video', endpoint: 'https://video.example/oembed.json' })
  t.ok(list.match('http://www.video.example/watch?v=1'), 'either scheme')
  t.ok(list.match('https://v.example/abc'))
  t.equal(list.match('https://evil.example/?.video.example/watch'), null, 'a wildcard in the host stays in the host')
  t.equal(list.match('https://evil.example/www.video.example/watch'), null)
  t.equal(list.match('https://video.example.evil/watch'), null)
  t.equal(list.match('https://v.example.evil/abc'), null)

  const published = providersFromEnv({})
  t.equal(published.match('https://www.youtube.com/watch?v=abc')?.name, 'YouTube', 'the published list is loaded')
  t.throws(() => providersFromEnv({ CMS_OEMBED_PROVIDERS: '/nonexistent/providers.json' }), /CMS_OEMBED_PROVIDERS/)
})

t.test('provider matching of a megabyte URL: the host part is read, not a megabyte per pattern', async (t) => {
  const published = providersFromEnv({})
  // CPU time, not wall time: other processes on a loaded machine stretch the latter.
  const time = (url: string): number => cpuMs(() => published.match(url))
  // The baseline: an ordinary URL of a provider, against the same list in the same run.
  const baseline = Math.min(time('https://www.youtube.com/watch?v=abc'), time('https://www.youtube.com/watch?v=abc'))
  t.ok(published.match('https://www.youtube.com/watch?v=abc') !== null, 'an ordinary provider URL still matches')
  for (const url of [`http://${'-%20'.repeat(333_333)}`, `https://${'a.'.repeat(500_000)}com/`, `https://www.youtube.com/watch?v=${'a'.repeat(1_000_000)}`]) {
    const ms = time(url)
    t.ok(ms < Math.max(200, 50 * baseline), `${url.slice(0, 30)}… (${url.length} characters): ${ms.toFixed(1)} ms (an ordinary URL: ${baseline.toFixed(2)} ms)`)
  }
  t.equal(published.match(`https://${'a'.repeat(600)}.youtube.com/watch?v=abc`), null, 'a host longer than any host name matches no provider')
})

t.test('discovery links', async (t) => {
  const page = 'https://site.example/a/page'
  t.equal(discoveryLink('<link rel="alternate" type="application/json+oembed" href="/oembed?url=x&amp;format=json">', page),
    'https://site.example/oembed?url=x&format=json')
  t.equal(discoveryLink('<LINK TYPE=\'text/xml+oembed\' REL=\'alternate\' HREF=\'x.xml\'><link rel="alternate" type="application/json+oembed" href="https://o.example/j">', page),
    'https://o.example/j', 'JSON is preferred wherever it is')
  t.equal(discoveryLink('<link rel="alternate" type="text/xml+oembed" href="x.xml">', page), 'https://site.example/a/x.xml')
  t.equal(discoveryLink('<link rel="stylesheet" type="application/json+oembed" href="/x">', page), null)
  t.equal(discoveryLink('<link rel="alternate" type="application/rss+xml" href="/feed">', page), null)
})

t.test('embed html of remote answers', async (t) => {
  const url = 'https://site.example/p?a=1&b=2'
  t.equal(dataHtml({ type: 'photo', url: 'https://img.example/x.png', width: 100, height: '50', title: 'A "pic"' }, url, false),
    '<a href="https://site.example/p?a=1&#038;b=2"><img src="https://img.example/x.png" alt="A &quot;pic&quot;" width="100" height="50" /></a>')
  t.equal(dataHtml({ type: 'photo', url: 'javascript:alert(1)', width: 1, height: 1 }, url, true), null)
  t.equal(dataHtml({ type: 'photo', url: 'https://img.example/x.png' }, url, true), null, 'a photo needs its size')
  t.equal(dataHtml({ type: 'link', title: '<b>T</b>' }, url, false), '<a href="https://site.example/p?a=1&#038;b=2">&lt;b&gt;T&lt;/b&gt;</a>')
  t.equal(dataHtml({ type: 'link' }, url, false), null)
  t.equal(dataHtml({ type: 'rich', html: '<div onclick="x()">trusted</div>' }, url, true), '<div onclick="x()">trusted</div>')
  t.equal(dataHtml({ type: 'rich', html: '<div>no frame</div>' }, url, false), null, 'untrusted html needs an iframe')
  t.equal(dataHtml({ type: 'unknown', html: '<iframe src="https://x.example/"></iframe>' }, url, true), null)
  t.equal(sandboxedFrame('<iframe src="javascript:alert(1)"></iframe>'), null)
  t.match(sandboxedFrame('<iframe width="100%" height="1e9" src="https://x.example/f"></iframe>'), /^<iframe class="cms-embedded-content" sandbox="allow-scripts" security="restricted" src="https:\/\/x\.example\/f#\?secret=\w{10}" data-secret="\w{10}" width="100%"><\/iframe>$/)
})

t.test('escaping', async (t) => {
  t.equal(escAttr('a & b &amp; <c> "d" \'e\' &#8217;'), 'a &amp; b &amp; &lt;c&gt; &quot;d&quot; &#039;e&#039; &#8217;')
  t.equal(escUrl('https://x.example/a b"c<d>?q=1&r=2'), 'https://x.example/abcd?q=1&#038;r=2')
  t.equal(escUrl('javascript:alert(1)'), '')
  t.equal(escUrl('  http://x.example/\'q\''), 'http://x.example/&#039;q&#039;')
})

t.test('the XML writer', async (t) => {
  t.equal(toOembedXml({ a: 'x & y &hellip; &bogus; <z>', b: true, c: false, d: null, e: 3, f: ['p', 'q'], 'g h': { i: '\u00e9' } }),
    '<?xml version="1.0"?>\n<oembed><a>x &amp; y &#8230; &amp;bogus; &lt;z&gt;</a><b>1</b><c/><d/><e>3</e>' +
    '<f><oembed>p</oembed><oembed>q</oembed></f><g_h><i>&#233;</i></g_h></oembed>\n')
})

t.test('local addresses and sizes', async (t) => {
  const site = { name: 'S', home: 'http://cms.test', hosts: ['cms.test'] }
  t.same(localReference('http://cms.test/?p=5', site), { id: 5, types: ['posts', 'pages'] })
  t.same(localReference('http://CMS.test/?x=1&page_id=7', site), { id: 7, types: ['pages', 'posts'] })
  t.same(localReference('https://www.cms.test/index.php?rest_route=/cms/v2/pages/3', site), { id: 3, types: ['pages'] })
  t.same(localReference('http://cms.test/cms-json/cms/v2/posts/4', site), { id: 4, types: ['posts'] })
  t.same(localReference('/?p=9', site), { id: 9, types: ['posts', 'pages'] }, 'a relative URL is this site')
  t.equal(localReference('http://other.test/?p=5', site), null)
  t.equal(localReference('http://cms.test/?p=0', site), null)
  t.equal(localReference('http://cms.test/?author=1', site), null)
  t.same(embedSize(0), { width: 200, height: 200 })
  t.same(embedSize(601), { width: 600, height: 338 })
  t.same(embedSize(480), { width: 480, height: 270 })
  t.equal(absint('250px'), 250)
  t.equal(absint(' -42'), 42)
  t.equal(absint('1e3'), 1000)
  t.equal(absint('x'), 0)
  t.equal(absint(['a']), 1)
  t.equal(absint(7.9), 7)
})
