// test-all: first pass only. No database: a second pass (scripts/test-run.mjs) would test the same thing.
/**
 * `freePort` (@cms/store/testing): a port below the kernel's own range,
 * claimed for this process, so a server a test starts later (a child, a
 * restart) finds it free; another live process's claim is respected, a dead
 * one's taken over.
 */
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../src/testing.js'

const listens = async (port: number): Promise<boolean> => await new Promise((resolve) => {
  const s = createServer()
  s.once('error', () => { resolve(false) })
  s.listen(port, '127.0.0.1', () => { s.close(() => { resolve(true) }) })
})

t.test('a port below the kernel\'s range, claimed by this process, free to listen on', async (t) => {
  const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
  const port = await freePort()
  t.ok(port >= 1024 && port < low, `${port} is below ${low}, where listen(0) and outgoing connections take theirs`)
  t.ok(existsSync(join(tmpdir(), `cms-test-ports-${process.getuid!()}`, `${port}-${process.pid}`)), 'claimed in the temporary directory')
  t.ok(await listens(port), 'free to listen on')
  t.not(await freePort(), port, 'not given twice to one process')
})

t.test('another live process\'s claim is respected; a dead process\'s is taken over', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cms-ports-test-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  // Claimed for this process in the shared directory: no other test binds it meanwhile.
  const port = await freePort()
  const range = [port, port + 1] as const
  writeFileSync(join(dir, `${port}-${process.ppid}`), '')
  await t.rejects(freePort({ dir, range }), /no free port/, 'a live process holds the only port')
  rmSync(join(dir, `${port}-${process.ppid}`))
  const dead = spawnSync(process.execPath, ['-e', '0']).pid!
  writeFileSync(join(dir, `${port}-${dead}`), '')
  t.equal(await freePort({ dir, range }), port, 'a dead process\'s claim is no claim')
  t.same(readdirSync(dir), [`${port}-${process.pid}`], 'its file removed, this process\'s written')
})
