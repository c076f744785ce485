/**
 * assistant/v1 snippets and artifacts through HTTP (seo-rollback-assistant-addons.md
 * §3.2, §3.3): the lifecycle and its deployment status, every static file
 * rule with its code, a JavaScript syntax error located, ownership and
 * conflicts, who may call.
 */
import t from 'tap'
import { testApp } from '@cms/testing'
import { builderPackage } from '@cms/builder'
import { assistantPackage } from '../src/index.js'

const S = '/assistant/v1'
const MAIN = { name: 'main.php', content: '<?php echo "hello";' }

t.test('snippets and artifacts', async (t) => {
  const h = await testApp({ packages: [builderPackage, assistantPackage], namespaces: ['cms/v2', 'assistant/v1'] })
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const admin2 = await h.caller('administrator')
  const editor = await h.caller('editor')

  const statusOf = async (id: number): Promise<string> => {
    const list = await h.call('GET', `${S}/snippets`, { as: admin })
    return list.body.snippets.find((s: any) => s.id === id)?.deploymentStatus
  }

  t.test('the lifecycle: create, save (test-only), publish (deployed), save again (changes-pending), delete', async (t) => {
    const made = await h.call('POST', `${S}/snippets`, { as: admin, body: { title: 'My banner', type: 'code-snippet' } })
    t.same([made.status, Object.keys(made.body).sort(), made.body.title], [200, ['id', 'title'], 'My banner'])
    const id: number = made.body.id
    t.equal(await statusOf(id), 'not-deployed')

    const saved = await h.call('PUT', `${S}/snippets/${id}/files`, { as: admin, body: { files: [MAIN, { name: 'style.css', content: 'a{color:red}' }] } })
    t.same(saved.body, { success: true, message: 'Snippet files updated successfully.', post_id: id, files: 2 })
    t.equal(await statusOf(id), 'test-only')

    const published = await h.call('POST', `${S}/snippets/${id}/publish`, { as: admin })
    t.same(published.body, { success: true, message: 'Snippet published to production successfully.', post_id: id, type: 'code-snippet', files: 2 })
    t.equal(await statusOf(id), 'deployed')
    const prod = await h.store.execute<{ name: string }>(`select name from assistant_snippet_files where snippet_id = ${id} and env = 'prod' order by name`)
    t.same(prod.map((r) => r.name), ['main.php', 'style.css'], 'prod holds the published copies')

    // A save merges by name: main.php replaced, style.css kept, app.js added.
    const again = await h.call('PATCH', `${S}/snippets/${id}/files`, { as: admin, body: { files: [{ name: 'main.php', content: '<?php echo "v2";' }, { name: 'app.js', content: 'export const x = 1' }] } })
    t.equal(again.body.files, 3)
    t.equal(await statusOf(id), 'changes-pending')
    const prodMain = await h.store.execute<{ content: Buffer }>(`select content from assistant_snippet_files where snippet_id = ${id} and env = 'prod' and name = 'main.php'`)
    t.equal(Buffer.from(prodMain[0]!.content).toString(), MAIN.content, 'prod is untouched by a save')

    const list = await h.call('GET', `${S}/snippets`, { as: admin })
    const item = list.body.snippets.find((s: any) => s.id === id)
    t.match(item, { id, slug: 'my-banner', title: 'My banner', status: 'publish', types: ['code-snippet'], deploymentStatus: 'changes-pending', artifactId: null, version: null, isOwnedByCurrentUser: true })
    t.same(item.files, [{ name: 'app.js', size: 18 }, { name: 'main.php', size: 16 }, { name: 'style.css', size: 12 }])
    t.match(item.createdAt, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
    t.equal((await h.call('GET', `${S}/snippets`, { as: admin2 })).body.snippets.find((s: any) => s.id === id).isOwnedByCurrentUser, false)

    const files = await h.call('GET', `${S}/snippets/${id}/files`, { as: admin })
    t.same(files.body, { files: [{ name: 'app.js', size: 18 }, { name: 'main.php', size: 16 }, { name: 'style.css', size: 12 }], total: 3, isOwnedByCurrentUser: true })
    const withContent = await h.call('GET', `${S}/snippets/${id}/files`, { as: admin, query: { include_content: 'true' } })
    t.equal(withContent.body.files[1].content, '<?php echo "v2";')
    t.same((await h.call('GET', `${S}/snippets/${id}/files/style.css`, { as: admin })).body, { name: 'style.css', content: 'a{color:red}', size: 12 })
    const missing = await h.call('GET', `${S}/snippets/${id}/files/nope.css`, { as: admin })
    t.same([missing.status, missing.body.code], [404, 'file_not_found'])

    const filtered = await h.call('GET', `${S}/snippets`, { as: admin, query: { deployment_status: 'deployed,test-only' } })
    t.notOk(filtered.body.snippets.some((s: any) => s.id === id), 'the filter takes a comma list')
    const pending = await h.call('GET', `${S}/snippets`, { as: admin, query: { deployment_status: 'changes-pending' } })
    t.ok(pending.body.snippets.some((s: any) => s.id === id))
    const badStatus = await h.call('GET', `${S}/snippets`, { as: admin, query: { deployment_status: 'live' } })
    t.same([badStatus.status, badStatus.body.code], [400, 'rest_invalid_param'])
    t.equal((await h.call('GET', `${S}/snippets`, { as: admin, query: { type: 'nonsense' } })).body.total, list.body.total, 'an unknown type is ignored')
    t.equal((await h.call('GET', `${S}/snippets`, { as: admin, query: { type: 'popup' } })).body.total, 0)

    const gone = await h.call('DELETE', `${S}/snippets/${id}`, { as: admin2 })
    t.same(gone.body, { success: true, message: 'Snippet deleted successfully.', post_id: id })
    t.same(await h.store.execute(`select 1 from assistant_snippet_files where snippet_id = ${id}`), [], 'both file sets gone')
    t.same((await h.call('DELETE', `${S}/snippets/${id}`, { as: admin })).body.code, 'snippet_not_found')
    t.same((await h.call('POST', `${S}/snippets/${id}/publish`, { as: admin })).status, 404)
  })

  t.test('artifacts: link, conflicts, rename, files with version, publish and delete by artifact', async (t) => {
    const a = (await h.call('POST', `${S}/snippets`, { as: admin, body: { title: 'Widget', type: 'builder-widget', artifact_id: 'abc-123', version: 2 } })).body.id
    const dup = await h.call('POST', `${S}/snippets`, { as: admin, body: { title: 'Other', artifact_id: 'abc-123' } })
    t.same([dup.status, dup.body.code], [409, 'artifact_snippet_exists'])
    const b = (await h.call('POST', `${S}/snippets`, { as: admin, body: { title: 'Plain' } })).body.id

    const notOwner = await h.call('POST', `${S}/snippets/${b}/artifact`, { as: admin2, body: { artifact_id: 'def-456' } })
    t.same([notOwner.status, notOwner.body.code], [403, 'snippet_not_owned'])
    const taken = await h.call('PUT', `${S}/snippets/${b}/artifact`, { as: admin, body: { artifact_id: 'abc-123' } })
    t.same([taken.status, taken.body.code], [409, 'artifact_snippet_exists'])
    const linked = await h.call('PATCH', `${S}/snippets/${b}/artifact`, { as: admin, body: { artifact_id: 'def-456' } })
    t.same(linked.body, { success: true, post_id: b, artifact_id: 'def-456' })
    const relink = await h.call('POST', `${S}/snippets/${b}/artifact`, { as: admin, body: { artifact_id: 'aaa-999' } })
    t.same([relink.status, relink.body.code], [409, 'snippet_already_linked'])
    const badId = await h.call('POST', `${S}/snippets/${b}/artifact`, { as: admin, body: { artifact_id: 'NOT HEX' } })
    t.same([badId.status, badId.body.code], [400, 'invalid_artifact_id'])

    const renamed = await h.call('POST', `${S}/artifacts/abc-123/rename`, { as: admin, body: { title: 'New title' } })
    t.same(renamed.body, { success: true, message: 'Snippet renamed successfully.', post_id: a, title: 'New title' })
    const unknown = await h.call('PUT', `${S}/artifacts/0000-ffff/rename`, { as: admin, body: { title: 'X' } })
    t.same([unknown.status, unknown.body.code, unknown.body.message], [404, 'snippet_not_found', 'No snippet found for artifact: 0000-ffff'])
    t.equal((await h.call('POST', `${S}/artifacts/ABC/rename`, { as: admin, body: { title: 'X' } })).status, 404, 'uppercase is not an artifact id: no route')

    const saved = await h.call('PUT', `${S}/artifacts/abc-123/files`, { as: admin, body: { files: [MAIN], version: 7 } })
    t.same(saved.body, { success: true, message: 'Snippet files updated successfully.', post_id: a, artifact_id: 'abc-123', files: 1 })
    const item = (await h.call('GET', `${S}/snippets`, { as: admin })).body.snippets.find((s: any) => s.id === a)
    t.match(item, { version: 7, artifactId: 'abc-123', deploymentStatus: 'test-only', widgetName: 'new-title', types: ['builder-widget'] })
    const published = await h.call('PATCH', `${S}/artifacts/abc-123`, { as: admin })
    t.match(published.body, { success: true, post_id: a, artifact_id: 'abc-123', files: 1, type: 'builder-widget' })
    const noFiles = await h.call('POST', `${S}/artifacts/def-456`, { as: admin })
    t.same([noFiles.status, noFiles.body.code], [400, 'no_files'])
    const deleted = await h.call('DELETE', `${S}/artifacts/abc-123`, { as: admin })
    t.same(deleted.body, { success: true, message: 'Snippet deleted successfully.', post_id: a })
    t.equal((await h.call('DELETE', `${S}/artifacts/abc-123`, { as: admin })).status, 404)
  })

  t.test('creating: title, type, version', async (t) => {
    const empty = await h.call('POST', `${S}/snippets`, { as: admin, body: { title: '   ' } })
    t.same([empty.status, empty.body.code], [400, 'missing_title'])
    const missing = await h.call('POST', `${S}/snippets`, { as: admin, body: {} })
    t.same([missing.status, missing.body.code], [400, 'rest_missing_callback_param'])
    const type = await h.call('POST', `${S}/snippets`, { as: admin, body: { title: 'X', type: 'php-hack' } })
    t.same([type.status, type.body.code], [400, 'invalid_type'])
    const version = await h.call('POST', `${S}/snippets`, { as: admin, body: { title: 'X', version: 'two' } })
    t.same([version.status, version.body.code], [400, 'rest_invalid_param'])
  })

  t.test('every static file rule with its code, nothing written', async (t) => {
    const id = (await h.call('POST', `${S}/snippets`, { as: admin, body: { title: 'Rules' } })).body.id
    const big = 'x'.repeat(102_401)
    const cases: Array<[string, unknown, string]> = [
      ['empty set', [], 'invalid_files'],
      ['101 files', Array.from({ length: 101 }, (_, i) => ({ name: `f${i}.css`, content: '' })), 'invalid_files'],
      ['a string (read as a list of one)', 'main.php', 'invalid_file_format'],
      ['not an array', { name: 'main.php' }, 'rest_invalid_param'],
      ['no content', [{ name: 'main.php' }], 'invalid_file_format'],
      ['no name', [{ content: 'x' }], 'invalid_file_format'],
      ['a slash', [MAIN, { name: 'a/b.php', content: '' }], 'invalid_filename'],
      ['a backslash', [MAIN, { name: 'a\\b.php', content: '' }], 'invalid_filename'],
      ['dot dot', [MAIN, { name: '..php', content: '' }], 'invalid_filename'],
      ['NUL', [MAIN, { name: 'a\u0000.php', content: '' }], 'invalid_filename'],
      ['extension', [MAIN, { name: 'run.sh', content: '' }], 'invalid_file_type'],
      ['no extension', [MAIN, { name: 'README', content: '' }], 'invalid_file_type'],
      ['too large', [MAIN, { name: 'big.css', content: big }], 'file_too_large'],
      ['duplicate', [MAIN, { ...MAIN }], 'duplicate_filename'],
      ['no main.php', [{ name: 'style.css', content: '' }], 'main_php_required']
    ]
    for (const fn of ['eval', 'exec', 'shell_exec', 'system', 'passthru', 'proc_open', 'popen', 'pcntl_exec', 'assert', 'create_function']) {
      cases.push([`forbidden ${fn}`, [{ name: 'main.php', content: `<?php\n$x = 1;\n${fn.toUpperCase()} ($x);` }], 'forbidden_function'])
    }
    for (const [why, files, code] of cases) {
      for (const path of [`${S}/snippets/${id}/files`, `${S}/snippets/validate`]) {
        const res = await h.call(path.endsWith('validate') ? 'POST' : 'PUT', path, { as: admin, body: { files } })
        t.same([res.status, res.body.code], [400, code], `${why}: ${code} (${path.endsWith('validate') ? 'validate' : 'save'})`)
      }
    }
    const forbidden = await h.call('POST', `${S}/snippets/validate`, { as: admin, body: { files: [{ name: 'main.php', content: '<?php system("ls");' }] } })
    t.equal(forbidden.body.message, 'Forbidden function detected: system')
    // A set too large to scan on the request thread is scanned in the worker, with the same answer.
    const pad = `<?php\n${'// padding line\n'.repeat(6000)}`
    const large = [{ name: 'main.php', content: pad }, { name: 'a.php', content: pad }, { name: 'b.php', content: `${pad}\nPassThru ("x");` }]
    const offThread = await h.call('POST', `${S}/snippets/validate`, { as: admin, body: { files: large } })
    t.same([offThread.status, offThread.body.code, offThread.body.message, offThread.body.data.details], [400, 'forbidden_function', 'Forbidden function detected: passthru', { file: 'b.php', function: 'passthru' }])
    const method = await h.call('POST', `${S}/snippets/validate`, { as: admin, body: { files: [{ name: 'main.php', content: '<?php $db->exec("x"); my_system(1);' }] } })
    t.same(method.body, { valid: true, message: 'Snippet validation passed.' }, 'methods and longer names are not the forbidden functions')
    t.same(await h.store.execute(`select 1 from assistant_snippet_files where snippet_id = ${id}`), [], 'no failed save wrote anything')
    t.equal(await statusOf(id), 'not-deployed')

    // main.php already stored: a save of other files alone passes.
    t.equal((await h.call('PUT', `${S}/snippets/${id}/files`, { as: admin, body: { files: [MAIN] } })).status, 200)
    t.equal((await h.call('PUT', `${S}/snippets/${id}/files`, { as: admin, body: { files: [{ name: 'extra.css', content: '' }] } })).body.files, 2)
    const badType = await h.call('PUT', `${S}/snippets/${id}/files`, { as: admin, body: { files: [MAIN], type: 'nope' } })
    t.same([badType.status, badType.body.code], [400, 'invalid_type'])
  })

  t.test('JavaScript files are parsed: a syntax error is located', async (t) => {
    const res = await h.call('POST', `${S}/snippets/validate`, { as: admin, body: { files: [MAIN, { name: 'app.js', content: 'const a = 1;\nfunction f () {\n  return a +\n}\n' }] } })
    t.same([res.status, res.body.code], [400, 'validation_failed'])
    t.match(res.body.data.details, { file: 'app.js', line: 4, column: 1, message: /unexpected token/i })
    const ok = await h.call('POST', `${S}/snippets/validate`, { as: admin, body: { files: [MAIN, { name: 'app.js', content: 'import { x } from "./y.js"\nexport default function () { return x }' }, { name: 'b.js', content: 'while (true) {}' }] } })
    t.same(ok.body, { valid: true, message: 'Snippet validation passed.' }, 'module syntax parses; nothing is run')
  })

  t.test('who may call: manage_options', async (t) => {
    const id = (await h.call('POST', `${S}/snippets`, { as: admin, body: { title: 'Guarded' } })).body.id
    const calls: Array<[string, string, unknown?]> = [
      ['GET', 'snippets'], ['POST', 'snippets', { title: 'x' }], ['POST', 'snippets/validate', { files: [MAIN] }],
      ['DELETE', `snippets/${id}`], ['PUT', `snippets/${id}/files`, { files: [MAIN] }], ['GET', `snippets/${id}/files`],
      ['POST', `snippets/${id}/publish`], ['POST', 'artifacts/abc/rename', { title: 'x' }], ['DELETE', 'artifacts/abc']
    ]
    for (const [method, path, body] of calls) {
      t.same([(await h.call(method, `${S}/${path}`, { body })).status, (await h.call(method, `${S}/${path}`, { as: editor, body })).status], [401, 403], `${method} ${path}`)
    }
    t.equal((await h.call('GET', `${S}/snippets`, { as: admin })).body.snippets.some((s: any) => s.id === id), true, 'the refused delete deleted nothing')
  })
})
