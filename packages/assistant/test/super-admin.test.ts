/**
 * assistant/v1 super-admin through HTTP (seo-rollback-assistant-addons.md
 * §3.5, CONVENTIONS.md §9): the three locks (flag, capability, execution
 * token), opt-in respecting an explicit disable, execute off by default and,
 * when on, JavaScript in the QuickJS sandbox: a result, console output, an
 * infinite loop stopped (the request thread answering meanwhile), an
 * allocation bomb stopped, no host access; list
 * and read confined to the content directory (every payload of the
 * security harness's traversal list refused).
 */
import fsp, { mkdir, readFile, rename, symlink, writeFile } from 'node:fs/promises'
import { syncBuiltinESMExports } from 'node:module'
import { join } from 'node:path'
import t from 'tap'
import { scratchDir, testApp, type TestApp } from '@cms/testing'
import { builderPackage } from '@cms/builder'
import { assistantPackage } from '../src/index.js'
import { descriptors } from '../src/super-admin.js'

const S = '/assistant/v1'
// The security harness's payloads (copied from apps/gateway/test/data/traversal.txt).
const TRAVERSAL = (await readFile(new URL('./data/traversal.txt', import.meta.url), 'utf8')).split('\n').filter((l) => l !== '' && !l.startsWith('# '))

async function app (execute: boolean, timeoutMs?: number): Promise<TestApp & { content: string }> {
  const content = await scratchDir('assistant-content')
  const settings: Record<string, string | undefined> = { CMS_ASSISTANT_EXECUTE: execute ? '1' : '0', CMS_ASSISTANT_EXECUTE_TIMEOUT_MS: timeoutMs?.toString() }
  const before = Object.fromEntries(Object.keys(settings).map((k) => [k, process.env[k]]))
  // The package reads its settings from the environment when it registers.
  const set = (values: Record<string, string | undefined>): void => {
    for (const [k, v] of Object.entries(values)) { if (v === undefined) delete process.env[k]; else process.env[k] = v }
  }
  set(settings)
  try {
    return Object.assign(await testApp({ packages: [builderPackage, assistantPackage], namespaces: ['cms/v2', 'assistant/v1'], contentDir: content }), { content })
  } finally {
    set(before)
  }
}

t.test('execution off (the default)', async (t) => {
  const h = await app(false)
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  const admin2 = await h.caller('administrator')
  const editor = await h.caller('editor')

  t.test('the flag, the capability, the token', async (t) => {
    t.same((await h.call('GET', `${S}/super-admin/status`, { as: admin })).body, { enabled: false })
    t.equal((await h.call('GET', `${S}/super-admin/status`, { as: editor })).status, 403)
    const off = await h.call('POST', `${S}/super-admin/execute`, { as: admin, body: { code: '1' } })
    t.same([off.status, off.body.code], [403, 'rest_forbidden'], 'flag off: a plain refusal, even for an administrator')
    t.equal((await h.call('POST', `${S}/super-admin/execute`, { body: { code: '1' } })).status, 401)

    t.equal((await h.call('POST', `${S}/super-admin/opt-in`, { as: editor })).status, 403)
    t.same((await h.call('POST', `${S}/super-admin/opt-in`, { as: admin })).body, { success: true, message: 'Super Admin mode enabled' })
    const status = await h.call('GET', `${S}/super-admin/status`, { as: admin })
    t.match(status.body, { enabled: true, exec_token: /^\d+\.[\w-]+$/, exec_token_header: 'X-Assistant-Exec-Token', execute_enabled: false })
    const token: string = status.body.exec_token
    t.ok(status.body.exec_token_expires - Date.now() / 1000 <= 86_400, 'valid a day at most')

    const none = await h.call('GET', `${S}/super-admin/list`, { as: admin, query: { path: '.' } })
    t.same([none.status, none.body.code], [403, 'missing_exec_token'])
    const bad = await h.call('GET', `${S}/super-admin/list`, { as: admin, query: { path: '.' }, headers: { 'x-assistant-exec-token': `${token}x` } })
    t.same([bad.status, bad.body.code], [403, 'invalid_exec_token'])
    const other = await h.call('GET', `${S}/super-admin/list`, { as: admin2, query: { path: '.' }, headers: { 'x-assistant-exec-token': token } })
    t.same([other.status, other.body.code], [403, 'invalid_exec_token'], 'a token is bound to its user')
    const expires = Number(token.split('.')[0])
    const forged = await h.call('GET', `${S}/super-admin/list`, { as: admin, query: { path: '.' }, headers: { 'x-assistant-exec-token': `${expires + 1000}.${token.split('.')[1]}` } })
    t.same([forged.status, forged.body.code], [403, 'invalid_exec_token'], 'a changed expiry breaks the signature')
    t.equal((await h.call('GET', `${S}/super-admin/list`, { as: editor, query: { path: '.' }, headers: { 'x-assistant-exec-token': token } })).status, 403)

    const refused = await h.call('POST', `${S}/super-admin/execute`, { as: admin, body: { code: '1 + 1' }, headers: { 'x-assistant-exec-token': token } })
    t.same([refused.status, refused.body.code], [501, 'execution_not_supported'], 'execute is off unless the setting enables it')
    const stored = await h.store.execute<{ value: unknown }>("select value from options where name = 'assistant_exec_token_key'")
    t.match(String(stored[0]?.value), /^"?v1\./, 'the token key is sealed at rest')

    await h.store.execute("update options set value = '\"disabled\"' where name = 'assistant_super_admin_enabled'")
    const explicit = await h.call('POST', `${S}/super-admin/opt-in`, { as: admin })
    t.same([explicit.status, explicit.body.code], [403, 'super_admin_explicitly_disabled'])
    t.same((await h.call('GET', `${S}/super-admin/status`, { as: admin })).body, { enabled: false })
    await h.store.execute("update options set value = '\"active\"' where name = 'assistant_super_admin_enabled'")
  })

  t.test('list and read: the content directory only', async (t) => {
    const token: string = (await h.call('GET', `${S}/super-admin/status`, { as: admin })).body.exec_token
    const headers = { 'x-assistant-exec-token': token }
    await mkdir(join(h.content, 'plugins', 'demo'), { recursive: true })
    await writeFile(join(h.content, 'plugins', 'demo', 'manifest.json'), '{"name":"Demo","version":"1.0.0"}')
    await writeFile(join(h.content, 'big.txt'), 'x'.repeat(524_289))
    await writeFile(join(h.content, 'edge.txt'), 'y'.repeat(524_288))
    const outside = await scratchDir('assistant-outside')
    await writeFile(join(outside, 'secret.txt'), 'do not read')
    await symlink(outside, join(h.content, 'out'))
    await symlink(join(outside, 'secret.txt'), join(h.content, 'out.txt'))

    const root = await h.call('GET', `${S}/super-admin/list`, { as: admin, query: { path: '' }, headers })
    t.same(root.body.path, '.')
    t.same(root.body.entries.map((e: any) => [e.name, e.type]), [['big.txt', 'file'], ['edge.txt', 'file'], ['out', 'link'], ['out.txt', 'link'], ['plugins', 'dir']])
    t.equal(root.body.truncated, false)
    const demo = await h.call('GET', `${S}/super-admin/list`, { as: admin, query: { path: 'plugins/demo' }, headers })
    t.same(demo.body, { path: 'plugins/demo', entries: [{ name: 'manifest.json', type: 'file', size: 33 }], truncated: false })
    const read = await h.call('GET', `${S}/super-admin/read`, { as: admin, query: { path: 'plugins/demo/manifest.json' }, headers })
    t.same(read.body, { path: 'plugins/demo/manifest.json', size: 33, content: '{"name":"Demo","version":"1.0.0"}' })
    t.equal((await h.call('GET', `${S}/super-admin/read`, { as: admin, query: { path: 'edge.txt' }, headers })).body.size, 524_288, '512 KiB exactly is read')
    const big = await h.call('GET', `${S}/super-admin/read`, { as: admin, query: { path: 'big.txt' }, headers })
    t.same([big.status, big.body.code], [413, 'file_too_large'])
    t.same((await h.call('GET', `${S}/super-admin/read`, { as: admin, query: { path: 'plugins' }, headers })).body.code, 'not_a_file')
    t.same((await h.call('GET', `${S}/super-admin/list`, { as: admin, query: { path: 'big.txt' }, headers })).body.code, 'not_a_directory')
    t.same((await h.call('GET', `${S}/super-admin/list`, { as: admin, query: { path: 'nothing-here' }, headers })).body.code, 'not_a_directory')

    for (const path of [...TRAVERSAL, 'out', 'out/secret.txt', 'out.txt', 'plugins/%2e%2e/..']) {
      for (const route of ['list', 'read']) {
        const res = await h.call('GET', `${S}/super-admin/${route}`, { as: admin, query: { path }, headers })
        t.same([res.status, res.body.code], [400, 'invalid_path'], `${route} ${JSON.stringify(path)} refused`)
        t.notMatch(res.text, /root:|do not read|\/tmp\//, 'nothing disclosed')
      }
    }

    // The check and the read concern one file: a link swapped in between them (here by the file system's `open`,
    // called once the path was checked) is refused, in the last part of the path or in a directory before it.
    await mkdir(join(h.content, 'docs'))
    await writeFile(join(h.content, 'docs', 'secret.txt'), 'inside')
    await writeFile(join(h.content, 'plain.txt'), 'inside')
    const swaps: Record<string, () => Promise<void>> = {
      [join(h.content, 'plain.txt')]: async () => {
        await rename(join(h.content, 'plain.txt'), join(h.content, 'plain.was'))
        await symlink(join(outside, 'secret.txt'), join(h.content, 'plain.txt'))
      },
      [join(h.content, 'docs', 'secret.txt')]: async () => {
        await rename(join(h.content, 'docs'), join(h.content, 'docs.was'))
        await symlink(outside, join(h.content, 'docs'))
      }
    }
    // `list` the same, for a directory: the last part (lists) or a directory before it (lists/deep). Whichever of
    // `open` and `opendir` the route calls first with the path swaps the link in.
    await mkdir(join(h.content, 'lists'))
    await mkdir(join(h.content, 'lists', 'deep'))
    await writeFile(join(h.content, 'lists', 'deep', 'inner.txt'), 'inside')
    await mkdir(join(outside, 'deep'))
    await writeFile(join(outside, 'deep', 'outer.txt'), 'do not list')
    const listSwaps: Record<string, () => Promise<void>> = {
      [join(h.content, 'lists')]: async () => {
        await rename(join(h.content, 'lists'), join(h.content, 'lists.was'))
        await symlink(outside, join(h.content, 'lists'))
      },
      [join(h.content, 'lists', 'deep')]: async () => {
        await rename(join(h.content, 'lists'), join(h.content, 'lists.was'))
        await symlink(outside, join(h.content, 'lists'))
      }
    }
    const putBack = async (): Promise<void> => {
      await fsp.rm(join(h.content, 'lists'), { force: true })
      await rename(join(h.content, 'lists.was'), join(h.content, 'lists'))
    }
    const realOpen = fsp.open
    const realOpendir = fsp.opendir
    let opened = 0
    const swapFirst = async (path: unknown): Promise<void> => {
      const swap = swaps[String(path)] ?? listSwaps[String(path)]
      if (swap !== undefined) {
        opened++
        delete swaps[String(path)]
        delete listSwaps[String(path)]
        await swap()
      }
    }
    fsp.open = (async (...args: Parameters<typeof realOpen>) => {
      await swapFirst(args[0])
      return await realOpen(...args)
    }) as typeof realOpen
    fsp.opendir = (async (...args: Parameters<typeof realOpendir>) => {
      await swapFirst(args[0])
      return await realOpendir(...args)
    }) as typeof realOpendir
    syncBuiltinESMExports()
    try {
      for (const path of ['plain.txt', 'docs/secret.txt']) {
        const res = await h.call('GET', `${S}/super-admin/read`, { as: admin, query: { path }, headers })
        t.same([res.status, res.body.code], [400, 'invalid_path'], `read ${path}: a link swapped in after the check is refused`)
        t.notMatch(res.text, /do not read/, 'nothing read outside')
      }
      for (const path of ['lists', 'lists/deep']) {
        const res = await h.call('GET', `${S}/super-admin/list`, { as: admin, query: { path }, headers })
        t.same([res.status, res.body.code], [400, 'invalid_path'], `list ${path}: a link swapped in after the check is refused`)
        t.notMatch(res.text, /secret|outer/, 'nothing listed outside')
        await putBack()
      }
      t.equal(opened, 4, 'the swap happened between the check and the open')
    } finally {
      fsp.open = realOpen
      fsp.opendir = realOpendir
      syncBuiltinESMExports()
    }
    t.same((await h.call('GET', `${S}/super-admin/list`, { as: admin, query: { path: 'lists/deep' }, headers })).body.entries, [{ name: 'inner.txt', type: 'file', size: 6 }], 'listed when nothing is swapped')

    // Where the process has no descriptor paths (/proc/self/fd), the opened file is checked by its path's real
    // location and identity: the same answers.
    descriptors.dir = null
    try {
      t.same((await h.call('GET', `${S}/super-admin/read`, { as: admin, query: { path: 'docs.was/secret.txt' }, headers })).body, { path: 'docs.was/secret.txt', size: 6, content: 'inside' }, 'without /proc: a file inside is read')
      t.same((await h.call('GET', `${S}/super-admin/list`, { as: admin, query: { path: 'lists/deep' }, headers })).body.entries, [{ name: 'inner.txt', type: 'file', size: 6 }], 'without /proc: a directory inside is listed')
      // A directory before the last part is a link out (made after the path was resolved: resolveContent would refuse it).
      const swappedAfterResolve = async (route: string, path: string, dir: string): Promise<any> => {
        const realOpenNow = fsp.open
        fsp.open = (async (...args: Parameters<typeof realOpen>) => {
          if (String(args[0]).startsWith(join(h.content, dir) + '/') || String(args[0]) === join(h.content, dir)) {
            fsp.open = realOpenNow
            syncBuiltinESMExports()
            await rename(join(h.content, dir), join(h.content, `${dir}.was2`))
            await symlink(outside, join(h.content, dir))
          }
          return await realOpenNow(...args)
        }) as typeof realOpen
        syncBuiltinESMExports()
        try {
          return await h.call('GET', `${S}/super-admin/${route}`, { as: admin, query: { path }, headers })
        } finally {
          fsp.open = realOpenNow
          syncBuiltinESMExports()
          await fsp.rm(join(h.content, dir), { force: true })
          await rename(join(h.content, `${dir}.was2`), join(h.content, dir))
        }
      }
      await mkdir(join(h.content, 'docs.was', 'deep'))
      await writeFile(join(h.content, 'docs.was', 'secret.txt'), 'inside')
      const read = await swappedAfterResolve('read', 'docs.was/secret.txt', 'docs.was')
      t.same([read.status, read.body.code], [400, 'invalid_path'], 'without /proc: a read through a link swapped in is refused')
      t.notMatch(read.text, /do not read/)
      const list = await swappedAfterResolve('list', 'docs.was/deep', 'docs.was')
      t.same([list.status, list.body.code], [400, 'invalid_path'], 'without /proc: a list through a link swapped in is refused')
      t.notMatch(list.text, /outer/)
    } finally {
      descriptors.dir = '/proc/self/fd'
    }

    await mkdir(join(h.content, 'many'))
    await Promise.all(Array.from({ length: 1005 }, async (_, i) => { await writeFile(join(h.content, 'many', `f${i}`), '') }))
    const many = await h.call('GET', `${S}/super-admin/list`, { as: admin, query: { path: 'many' }, headers })
    t.same([many.body.entries.length, many.body.truncated], [1000, true])
  })
})

t.test('execution on: JavaScript in the sandbox', async (t) => {
  const h = await app(true)
  t.teardown(h.close)
  const admin = await h.caller('administrator')
  await h.call('POST', `${S}/super-admin/opt-in`, { as: admin })
  const token: string = (await h.call('GET', `${S}/super-admin/status`, { as: admin })).body.exec_token
  const run = async (code: string): Promise<any> => {
    const res = await h.call('POST', `${S}/super-admin/execute`, { as: admin, body: { code }, headers: { 'x-assistant-exec-token': token } })
    t.equal(res.status, 200, 'answered 200')
    return res.body
  }

  t.test('a promise is answered by its outcome; a value nested too deep is not copied out (never a 500)', async (t) => {
    t.match(await run('(async () => { await null; return { ok: 1 } })()'), { success: true, return_value: { ok: 1 }, errors: [] }, 'an async function\'s result')
    t.match(await run('Promise.resolve(3)'), { success: true, return_value: 3 })
    t.match(await run('Promise.reject(new RangeError("no"))'), { success: false, return_value: null, error_class: 'RangeError', error_message: 'no' })
    t.match(await run('new Promise(() => {})'), { success: true, return_value: null, errors: [{ type: 'Warning', message: 'The code returned a promise that did not settle.' }] })
    const deep = 'let a = {}; for (let i = 0; i < 3000; i++) a = { a }; '
    t.match(await run(`${deep}a`), { success: true, return_value: null, errors: [{ type: 'Warning', message: /deeper than 512 levels/ }] })
    t.match(await run(`${deep}console.log(a); 1`), { success: true, return_value: 1, output: '[a value nested deeper than 512 levels]\n' })
    t.match(await run(`${deep}throw a`), { success: false, error_message: '[a value nested deeper than 512 levels]' })
    t.match(await run('let a = {}; for (let i = 0; i < 500; i++) a = { a }; a'), { success: true, return_value: { a: { a: {} } } }, '500 levels are answered')
  })

  t.test('a result and console output', async (t) => {
    const r = await run('console.log("hello", {a: 1}); console.warn("careful"); const x = [1, 2, 3].map((n) => n * 2); x')
    t.match(r, { success: true, return_value: [2, 4, 6], output: 'hello {"a":1}\n', errors: [{ type: 'Warning', message: 'careful' }], requires_reload: 'none' })
    t.type(r.execution_time_ms, 'number')
    t.same((await run('const a = 20\nreturn a + 22')).return_value, 42, 'a top-level return answers its value')
    const thrown = await run('function f () { throw new TypeError("nope") }\nf()')
    t.match(thrown, { success: false, error_class: 'TypeError', error_message: 'nope' })
    const empty = await h.call('POST', `${S}/super-admin/execute`, { as: admin, body: { code: '  ' }, headers: { 'x-assistant-exec-token': token } })
    t.same([empty.status, empty.body.code], [400, 'empty_code'])
  })

  t.test('an infinite loop is stopped by the time limit', async (t) => {
    const r = await run('let i = 0\nwhile (true) { i++ }')
    t.match(r, { success: false, error_class: 'TimeLimitExceeded' })
  })

  t.test('the request thread stays free while a sandboxed loop runs', async (t) => {
    // Order, not time: requests made after the loop started are all answered before it is stopped
    // (at the 2 s limit), which they could not be if the sandbox ran on this thread.
    let settled = false
    const loop = run('while (true) {}').then((r) => { settled = true; return r })
    const answered: number[] = []
    for (let i = 0; i < 5; i++) {
      const started = performance.now()
      const res = await h.call('GET', S)
      t.equal(res.status, 200)
      if (!settled) answered.push(performance.now() - started)
    }
    // One answer before the loop was stopped proves the thread was free; how many fit in its 2 s depends on the
    // machine's load, so the count is not asserted (it was 5, and a loaded machine could answer fewer).
    t.ok(answered.length >= 1, `requests answered while the loop ran (${answered.length} of 5)`)
    t.comment(`answers while the loop ran: ${answered.map((ms) => ms.toFixed(1)).join(', ')} ms`)
    t.match(await loop, { success: false, error_class: 'TimeLimitExceeded' })
  })

  t.test('an allocation bomb is stopped by the memory limit', async (t) => {
    // Growing allocations: past the 32 MiB limit within a few rounds (a runtime with a fresh heap is slow to fail
    // many small ones; the thread's own time limit stops those, see the infinite loop). The time limit is the
    // longest there is (30 s), so a loaded machine's slowness cannot make it win over the memory limit.
    const slow = await app(true, 30_000)
    t.teardown(slow.close)
    const slowAdmin = await slow.caller('administrator')
    await slow.call('POST', `${S}/super-admin/opt-in`, { as: slowAdmin })
    const slowToken: string = (await slow.call('GET', `${S}/super-admin/status`, { as: slowAdmin })).body.exec_token
    const run = async (code: string): Promise<any> => {
      const res = await slow.call('POST', `${S}/super-admin/execute`, { as: slowAdmin, body: { code }, headers: { 'x-assistant-exec-token': slowToken } })
      t.equal(res.status, 200, 'answered 200')
      return res.body
    }
    const doubling = await run('const chunks = []\nlet size = 1 << 16\nwhile (true) { chunks.push(new ArrayBuffer(size)); size *= 2 }')
    t.match(doubling, { success: false, error_class: 'MemoryLimitExceeded', error_message: /memory limit of 33554432 bytes/ })
    const text = await run('let s = "x".repeat(1 << 20)\nconst keep = []\nwhile (true) { keep.push(s); s = s.repeat(3) }')
    t.match(text, { success: false, error_class: /MemoryLimitExceeded|RangeError|InternalError/ })
    t.same((await run('1 + 1')).return_value, 2, 'the next run is unaffected')
  })

  t.test('no host access', async (t) => {
    t.same((await run('[typeof process, typeof require, typeof fetch, typeof module, typeof Deno, typeof Bun]')).return_value, ['undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined'])
    t.same((await run('globalThis.constructor.constructor("return typeof process")()')).return_value, 'undefined', 'the Function constructor reaches the sandbox\'s own global only')
    t.same((await run('Object.getPrototypeOf(async function () {}).constructor("return typeof require")')).success, true)
    const dyn = await run('import("node:fs").then(() => console.log("loaded"), (e) => console.log("refused: " + e.message)); "queued"')
    t.match(dyn, { return_value: 'queued', output: /^refused: / }, 'import() loads nothing')
    const req = await run('require("child_process")')
    t.match(req, { success: false, error_class: 'ReferenceError' })
  })
})
