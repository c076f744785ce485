/**
 * assistant/v1 findings of an attacker's and a real client's probes, each
 * through HTTP on a real database: what a request could make the service
 * store or answer that it should not.
 */
import t from 'tap'
import { testApp } from '@cms/testing'
import { builderPackage } from '@cms/builder'
import { assistantPackage } from '../src/index.js'

const S = '/assistant/v1'

t.test('assistant probes', async (t) => {
  const h = await testApp({ packages: [builderPackage, assistantPackage], namespaces: ['cms/v2', 'assistant/v1'] })
  t.teardown(h.close)
  const admin = await h.caller('administrator')

  t.test('settings/{name}: JSON text nested past the body limit is refused, not stored to fail every read', async (t) => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000)
    const wrote = await h.call('POST', `${S}/settings/deep`, { as: admin, body: { value: deep } })
    t.same([wrote.status, wrote.body.code, wrote.body.data?.status], [413, 'rest_too_much_text', 413])
    t.same(await h.store.execute("select name from assistant_settings where name = 'deep'"), [], 'nothing written')
    const read = await h.call('GET', `${S}/settings/deep`, { as: admin })
    t.same([read.status, read.body.data.value], [200, []])
    const fine = '['.repeat(500) + ']'.repeat(500)
    t.equal((await h.call('POST', `${S}/settings/fine`, { as: admin, body: { value: fine } })).status, 200, 'as deep as a body may nest is kept')
    t.equal((await h.call('GET', `${S}/settings/fine`, { as: admin })).status, 200)
  })

  t.test('snippet files: a fully qualified call of a forbidden function (\\system) is refused like the bare one', async (t) => {
    const made = await h.call('POST', `${S}/snippets`, { as: admin, body: { title: 'Qualified' } })
    const id: number = made.body.id
    for (const content of ['<?php \\system("id");', '<?php echo 1; \\Shell_Exec ("id");', '<?php $f = \\eval("1;");']) {
      const saved = await h.call('PUT', `${S}/snippets/${id}/files`, { as: admin, body: { files: [{ name: 'main.php', content }] } })
      t.same([saved.status, saved.body.code], [400, 'forbidden_function'], content)
      const checked = await h.call('POST', `${S}/snippets/validate`, { as: admin, body: { files: [{ name: 'main.php', content }] } })
      t.same([checked.status, checked.body.code], [400, 'forbidden_function'], `validate: ${content}`)
    }
    // Over 256 KiB of PHP the scan runs in the sandbox thread: the same pattern there.
    const filler = `<?php\n${'// filler line of a large snippet\n'.repeat(2800)}`
    const large = [{ name: 'main.php', content: filler }, { name: 'b.php', content: filler }, { name: 'c.php', content: `${filler}\\passthru("id");` }]
    const big = await h.call('PUT', `${S}/snippets/${id}/files`, { as: admin, body: { files: large } })
    t.same([big.status, big.body.code, big.body.data?.details], [400, 'forbidden_function', { file: 'c.php', function: 'passthru' }])
    t.same(await h.store.execute(`select name from assistant_snippet_files where snippet_id = ${id}`), [], 'nothing written')
    for (const content of ['<?php $pdo->exec("select 1");', '<?php Lib\\system(1);', '<?php my_system(1);']) {
      const ok = await h.call('PUT', `${S}/snippets/${id}/files`, { as: admin, body: { files: [{ name: 'main.php', content }] } })
      t.equal(ok.status, 200, `not the global function: ${content}`)
    }
  })

  t.test('snippets/{id}: an id past the column\'s range is an unknown snippet (404), as the core\'s posts answer', async (t) => {
    const huge = '99999999999999999999'
    const calls: Array<[string, string, Record<string, unknown> | undefined]> = [
      ['GET', `${S}/snippets/${huge}/files`, undefined],
      ['GET', `${S}/snippets/${huge}/files/main.php`, undefined],
      ['PUT', `${S}/snippets/${huge}/files`, { files: [{ name: 'main.php', content: '<?php echo 1;' }] }],
      ['POST', `${S}/snippets/${huge}/artifact`, { artifact_id: 'abc-123' }],
      ['POST', `${S}/snippets/${huge}/publish`, undefined],
      ['DELETE', `${S}/snippets/${huge}`, undefined],
      ['DELETE', `${S}/snippets/2147483648`, undefined]
    ]
    for (const [method, path, body] of calls) {
      const res = await h.call(method, path, { as: admin, ...(body === undefined ? {} : { body }) })
      t.same([res.status, res.body.code, res.body.data?.status], [404, 'snippet_not_found', 404], `${method} ${path}`)
    }
  })

  t.test('cms-options: an unset site address reads as the service\'s, as the core\'s settings and the site description', async (t) => {
    const site = await h.call('GET', '/')
    const settings = await h.call('GET', '/cms/v2/settings', { as: admin })
    const options = await h.call('GET', `${S}/cms-options`, { as: admin })
    t.ok(site.body.url !== '', 'the site description has an address')
    t.same([options.body.options.url, settings.body.url], [site.body.url, site.body.url])
  })

  t.test('page-templates: every registered post type, with its edit capability (not only posts and pages)', async (t) => {
    const contributor = await h.caller('contributor')
    for (const type of ['attachment', 'builder_library']) {
      const res = await h.call('GET', `${S}/page-templates`, { as: admin, query: { post_type: type } })
      t.same([res.status, res.body.data?.post_type], [200, type], type)
    }
    t.equal((await h.call('GET', `${S}/page-templates`, { as: contributor, query: { post_type: 'builder_library' } })).status, 200, 'edit_posts edits library templates')
    t.equal((await h.call('GET', `${S}/page-templates`, { as: contributor })).status, 403, 'pages need edit_pages')
    for (const type of ['nope', '__proto__', 'constructor']) {
      t.equal((await h.call('GET', `${S}/page-templates`, { as: admin, query: { post_type: type } })).status, 403, `unknown: ${type}`)
    }
  })
})
