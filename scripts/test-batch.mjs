#!/usr/bin/env node
/**
 * Runs several compiled test files of one package in ONE process, one after
 * another (scripts/test-run.mjs makes the batches): each test process spent
 * 2.5 to 3.5 s of CPU loading its modules (tap, fastify, TypeBox, drizzle,
 * the workspace) before its first test, most of it the same modules in every
 * file of a package.
 *
 * Each file runs as a subtest of tap's root named by its path, with its own
 * time limit: the compiled file's `t` (the shim of scripts/build-tests.mjs)
 * is that subtest while the file loads and runs, so its top-level tests,
 * hooks (`t.beforeEach`) and teardowns are its own and end with it. Counts
 * are tap's as ever (assertions, not subtests). After each file one line of
 * JSON goes to the results file: its name, tap's counts of its subtest, its
 * wall and CPU seconds (this process's, so the shared loading is not in
 * them). The runner splits the output per file (its `# Subtest:` line); a
 * file during which the batch died (a crash, an exit, a kill) fails, and the
 * files after it run alone.
 *
 *   node --enable-source-maps --import=scripts/test-compiled.mjs scripts/test-batch.mjs \
 *     <results.jsonl> <package>/node_modules/.cms-test/tap.mjs  <name> <compiled.mjs> <timeout s> ...
 */
import { appendFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

const [results, shimPath, ...rest] = process.argv.slice(2)
const shim = await import(pathToFileURL(shimPath).href)
const root = shim.default

for (let i = 0; i + 2 < rest.length; i += 3) {
  const [name, file, timeout] = rest.slice(i, i + 3)
  // Said before the file starts, so a batch that dies names the file it died in (that file fails; it is not run again).
  appendFileSync(results, `${JSON.stringify({ name, started: true })}\n`)
  const started = Date.now()
  const cpu = process.cpuUsage()
  let sub
  await root.test(name, { timeout: Number(timeout) * 1000 }, async (t) => {
    sub = t
    shim.setCurrentTest(t)
    await import(pathToFileURL(file).href)
  })
  shim.setCurrentTest(undefined)
  const used = process.cpuUsage(cpu)
  const counts = sub?.counts ?? {}
  appendFileSync(results, `${JSON.stringify({
    name,
    total: counts.total ?? 0,
    pass: counts.pass ?? 0,
    fail: counts.fail ?? 0,
    skip: counts.skip ?? 0,
    todo: counts.todo ?? 0,
    seconds: (Date.now() - started) / 1000,
    cpu: (used.user + used.system) / 1e6,
  })}\n`)
}
