#!/usr/bin/env node
/**
 * Runs the test command's plan (scripts/test-all.sh writes it on stdin), a
 * few jobs at a time: every test file of every suite is one job, and so is
 * each static check. On 2 cores the suites ran one package after another
 * (19 minutes in CI), half of the time on one core; one pool of file jobs
 * keeps every core busy to the end.
 *
 *   suite <dir> <label> [VAR=value ...]    every test file of <dir> (its .taprc's
 *                                          include), with those variables
 *   check <name> <shell command>           one check, passed when it exits 0
 *
 * A test file runs as tap's runner would run it (`node <.taprc node-arg>
 * file`, in its package, TAP_TIMEOUT from the .taprc), without the runner
 * itself: tap's runner costs about 2 s of CPU per package and adds its
 * coverage loader (@tapjs/processinfo) to every test process and to every
 * process a test starts (NODE_OPTIONS), with coverage off. `npx tap` in a
 * package still runs its suite the usual way.
 *
 * The workspace's sources run compiled: scripts/build-dist.mjs brings every
 * package's dist/ up to date first, and `--import=tsx` becomes
 * `--import=scripts/test-loader.mjs`, which loads them from dist/ and
 * transpiles only the tests' own files (about 2 s of CPU less per test
 * process). Better still, a test file runs with no hooks at all:
 * scripts/build-tests.mjs compiles the test trees too (to each package's
 * node_modules/.cms-test/), and the file runs as plain JavaScript with
 * scripts/test-compiled.mjs preloaded (about 1 s of CPU less again: Node 20
 * runs module hooks on a thread of their own, every import crossing to it);
 * a file that imports TypeScript with no compiled form (bench/) keeps the
 * loader, and so does a file whose first lines say `test-all: loader` (one
 * that imports TypeScript it writes at run time, such as a scaffolded
 * package); CMS_TEST_COMPILED=0 gives every file the loader (to compare).
 * CMS_TEST_TSX=1 runs everything through tsx as `npx tap` does.
 *
 * Short files of a suite run in batches, several in one process
 * (scripts/test-batch.mjs; see "batches" below): each still a subtest of its
 * own, with its own log, counts, failures and time limit. A file whose first
 * lines say `test-all: alone` always has a process of its own.
 *
 * Every job runs under GNU time where it is installed: each suite's block
 * and the last line give the CPU seconds (user + system) its processes
 * spent, and <logs>/cpu.json each job's, for comparing runs at any load.
 *
 * A file whose first lines say `test-all: timeout N` gets N seconds (tap's
 * TAP_TIMEOUT and the runner's kill a minute later) instead of its .taprc's:
 * one that sets a longer limit of its own (fuzz) was killed at the .taprc's
 * on a heavily loaded machine.
 *
 * A file whose first lines say `test-all: first pass only` runs in the first
 * suite of its directory only: it does not read CMS_TEST_DATABASE_URL, so a
 * second pass would repeat it exactly (the file says why).
 *
 * Jobs start longest first (the last durations of this machine, in the
 * temporary directory, else scripts/test-durations.json), so no long file is
 * left for the end. While the jobs running leave a core idle (waiting on
 * timers, children or the database server), more run ("idle cores" below). Each suite prints its block when its last file is done:
 * the failures with tap's diagnostics, the skips, its counts and time. The
 * totals go to <logs>/totals ("passed failed skipped"); test-all.sh prints
 * the final line.
 *
 *   node scripts/test-run.mjs --logs DIR [--jobs N] < plan
 */
import { spawn, spawnSync } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir, userInfo } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import YAML from 'yaml'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const { values: opts } = parseArgs({ options: { logs: { type: 'string' }, jobs: { type: 'string' } } })
if (opts.logs === undefined) throw new Error('--logs DIR is required')
const LOGS = opts.logs
// As many as cores, at most 4 unless asked (each job holds a few hundred MB and its own connections to the test server).
const JOBS = Math.max(1, Number(opts.jobs ?? process.env.CMS_TEST_JOBS ?? Math.min(4, availableParallelism())) || 1)

const TSX = process.env.CMS_TEST_TSX === '1'
/** Test files' first lines, by path (header(), below). */
const headers = new Map()
const LOADER = `--import=${join(ROOT, 'scripts', 'test-loader.mjs')}`
const COMPILED = ['--enable-source-maps', `--import=${join(ROOT, 'scripts', 'test-compiled.mjs')}`]

// ---- the plan ----------------------------------------------------------------

const suites = [] // { key, dir, label, env, files: [], done: 0, results: [] }
const jobs = [] // { kind: 'file' | 'check', suite?, file?, name?, command?, key }
const firstSuiteOf = new Map()

for (const line of readFileSync(0, 'utf8').split('\n')) {
  const [kind, ...rest] = line.trim().split(/\s+/)
  if (kind === undefined || kind === '') continue
  if (kind === 'check') {
    const name = rest[0]
    const command = line.trim().replace(/^check\s+\S+\s+/, '')
    const suite = { key: name, title: name, files: [name], done: 0, results: [], check: true }
    suites.push(suite)
    jobs.push({ kind: 'check', suite, name, command, key: `check ${name}` })
  } else if (kind === 'suite') {
    const [dir, label, ...vars] = rest
    const env = Object.fromEntries(vars.map((v) => [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)]))
    const rc = taprc(dir)
    const first = !firstSuiteOf.has(dir)
    if (first) firstSuiteOf.set(dir, label)
    const files = testFiles(dir, rc.include).filter((f) => first || !marked(join(ROOT, dir, f), 'test-all: first pass only'))
    const suite = { key: `${dir} ${label}`, title: `${dir} (${label})`, dir, label, env, rc, files, done: 0, results: [] }
    suites.push(suite)
    for (const file of files) {
      const path = join(ROOT, dir, file)
      jobs.push({ kind: 'file', suite, file, key: `${dir} ${label} ${file}`, loader: marked(path, 'test-all: loader'), timeout: declaredTimeout(path) ?? rc.timeout })
    }
  } else {
    throw new Error(`plan: unknown line "${line}"`)
  }
}

function taprc (dir) {
  let text = ''
  try { text = readFileSync(join(ROOT, dir, '.taprc'), 'utf8') } catch {}
  const rc = YAML.parse(text) ?? {}
  const nodeArgs = [rc['node-arg'] ?? []].flat().map((arg) => (!TSX && arg === '--import=tsx' ? LOADER : arg))
  const include = [rc.include ?? ['test/**/*.test.ts']].flat()
  return { nodeArgs, include, timeout: Number(rc.timeout ?? 30) }
}

/** The files of `include` patterns of the form `<folder>/**\/*<suffix>` (what every .taprc uses), sorted; fixtures and dist excluded as tap does. */
function testFiles (dir, include) {
  const out = []
  for (const pattern of include) {
    const m = /^([^*]+)\/\*\*\/\*([^*/]+)$/.exec(pattern)
    if (m === null) throw new Error(`${dir}/.taprc: include pattern "${pattern}" is not of the form folder/**/*suffix`)
    const walk = (folder) => {
      let entries
      try { entries = readdirSync(join(ROOT, dir, folder), { withFileTypes: true }) } catch { return }
      for (const e of entries) {
        const path = `${folder}/${e.name}`
        if (e.isDirectory()) {
          if (!/^(fixtures?|dist|node_modules)$/.test(e.name)) walk(path)
        } else if (e.name.endsWith(m[2])) out.push(path)
      }
    }
    walk(m[1])
  }
  return [...new Set(out)].sort()
}

/** A test file's first lines, where its `test-all:` markers stand (read once per file: `headers`, above). */
function header (path) {
  if (!headers.has(path)) headers.set(path, readFileSync(path, 'utf8').split('\n', 40).join('\n'))
  return headers.get(path)
}

/** Whether a test file's first lines carry `marker` (`test-all: first pass only`, `test-all: loader`). */
function marked (path, marker) {
  return header(path).includes(marker)
}

/** The seconds a file's first lines allow it (`test-all: timeout 900`), where it needs more than its .taprc's. */
function declaredTimeout (path) {
  const m = /test-all: timeout (\d+)/.exec(header(path))
  return m === null ? undefined : Number(m[1])
}

// ---- order: longest first -----------------------------------------------------

const HISTORY = join(tmpdir(), `cms-test-durations-${userInfo().uid}.json`)
const readJson = (path) => { try { return JSON.parse(readFileSync(path, 'utf8')) } catch { return {} } }
const seed = readJson(join(ROOT, 'scripts', 'test-durations.json'))
const history = { ...seed, ...readJson(HISTORY) }
// A file known under another database only: that time (PGlite-only machines); unknown: a middling guess.
const byFile = new Map(Object.entries(history).map(([key, seconds]) => [key.replace(/^(\S+) \S+ /, '$1 '), seconds]))
const estimate = (job) => job.kind === 'batch'
  ? job.files.reduce((sum, f) => sum + estimate(f), 0)
  : history[job.key] ?? (job.kind === 'file' ? byFile.get(`${job.suite.dir} ${job.file}`) : undefined) ?? 10

// ---- batches: short files of a package in one process ---------------------------
//
// Each test process spent 2.5 to 3.5 s of CPU loading modules before its first test
// (tap, fastify, TypeBox, drizzle, the workspace: mostly the same in every file of a
// package), a third of the CPU of the whole command. The short files of a suite run in
// batches instead, one process each (scripts/test-batch.mjs): one file after another,
// each a subtest of its own with its own time limit, its output split into its own log
// and counted as its own; the file a batch dies in fails, the files after it run alone. Not batched: a
// long file (its loading is a small part of it), a file that needs the loader, and a
// file whose first lines say `test-all: alone` (one that measures its process: the CPU
// time of its work, its memory; another file's leftovers could move the figure).
// CMS_TEST_BATCH=0 runs every file alone, to compare.

const BATCH = process.env.CMS_TEST_BATCH !== '0'
const BATCH_ENTRY = join(ROOT, 'scripts', 'test-batch.mjs')
// Sizes in CPU seconds, which load barely changes (wall times from a loaded run made every file look long):
// the last CPU time of each file on this machine (in a batch: its own, the shared loading not counted),
// else scripts/test-cpu.json (a whole run's), else a third of its estimated wall time.
const CPU_HISTORY = join(tmpdir(), `cms-test-cpu-${userInfo().uid}.json`)
const cpuHistory = { ...readJson(join(ROOT, 'scripts', 'test-cpu.json')), ...readJson(CPU_HISTORY) }
const cpuByFile = new Map(Object.entries(cpuHistory).map(([key, seconds]) => [key.replace(/^(\S+) \S+ /, '$1 '), seconds]))
const cpuEstimate = (job) => cpuHistory[job.key] ?? cpuByFile.get(`${job.suite.dir} ${job.file}`) ?? estimate(job) / 3
/** A file is batched when it needs at most this many CPU seconds (a longer one is long by its own work). */
const BATCH_FILE_CPU = 12
/** A batch holds files of at most this many CPU seconds in all (so the pool still balances at the end). */
const BATCH_CPU = 30

/** Whether a file job runs compiled (scripts/build-tests.mjs), with no TypeScript loader. */
function runsCompiled (job) {
  const compiled = compiledTests[join(ROOT, job.suite.dir, job.file)]
  return compiled?.loader === null && !job.loader && job.suite.rc.nodeArgs.includes(LOADER)
}

/** The jobs with each suite's short files packed into batches (first fit, longest first). */
function batched (list) {
  const out = []
  const bins = new Map() // suite -> [{ files, total }]
  for (const job of list) {
    if (job.kind !== 'file' || !runsCompiled(job) || marked(join(ROOT, job.suite.dir, job.file), 'test-all: alone') || cpuEstimate(job) > BATCH_FILE_CPU) {
      out.push(job)
      continue
    }
    if (!bins.has(job.suite)) bins.set(job.suite, [])
    const suiteBins = bins.get(job.suite)
    suiteBins.push({ job, seconds: cpuEstimate(job) })
  }
  for (const [suite, candidates] of bins) {
    const packs = []
    for (const c of candidates.sort((a, b) => b.seconds - a.seconds)) {
      const pack = packs.find((p) => p.total + c.seconds <= BATCH_CPU)
      if (pack === undefined) packs.push({ files: [c.job], total: c.seconds })
      else { pack.files.push(c.job); pack.total += c.seconds }
    }
    packs.forEach((pack, i) => {
      if (pack.files.length === 1) { out.push(pack.files[0]); return }
      const files = pack.files.sort((a, b) => (a.file < b.file ? -1 : 1))
      out.push({ kind: 'batch', suite, files, n: i + 1, key: `${suite.dir} ${suite.label} batch ${i + 1}`, timeout: files.reduce((sum, f) => sum + f.timeout, 0) })
    })
  }
  return out
}

/**
 * A finished batch as the results of its files (each with its part of the output as its
 * own log, tap's counts of its subtest, its own seconds; the batch's CPU shared out: each
 * file its own, the first also the loading; the file it stopped in failed), and the files it did not start.
 */
function unbatch (result) {
  const { job } = result
  const lines = readFileSync(result.log, 'utf8').split('\n')
  const entries = new Map()
  // The file the batch was running when it stopped: started, never finished.
  let running
  try {
    for (const line of readFileSync(`${result.log}.results`, 'utf8').split('\n')) {
      if (line === '') continue
      const e = JSON.parse(line)
      if (e.started === true) running = e.name
      else { entries.set(e.name, e); if (running === e.name) running = undefined }
    }
  } catch {}
  const starts = job.files.map((f) => lines.indexOf(`# Subtest: ${f.file}`))
  const done = []
  const left = []
  const own = [...entries.values()].reduce((sum, e) => sum + e.cpu, 0)
  job.files.forEach((f, i) => {
    const e = entries.get(f.file)
    if (e === undefined && f.file === running) {
      // A file that stopped its process fails, as it would alone; running it again could hide a crash.
      const from = starts[i] < 0 ? 0 : starts[i]
      const log = logPath(f)
      const how = result.killed ? `killed after ${Math.round(result.seconds)} s` : `exit ${result.signal ?? result.code}`
      const part = lines.slice(from).filter((l) => !/^(# \{ total:|# time=|1\.\.\d+$|TAP version)/.test(l))
      writeFileSync(log, `TAP version 14\n# ran in ${job.key} (its whole output: ${result.log})\n${part.join('\n')}\nnot ok 1 - ${f.file}: the batch's process stopped (${how}) while this file ran\n# { total: 1, pass: 0, fail: 1 }\n`)
      done.push({ job: f, log, code: 1, signal: null, killed: result.killed, seconds: result.seconds, cpu: undefined, ownCpu: 0, batch: job.key })
      return
    }
    if (e === undefined) { left.push(f); return }
    const from = starts[i] < 0 ? 0 : starts[i]
    const next = starts.slice(i + 1).find((n) => n > from)
    const part = lines.slice(from, next ?? lines.length).filter((l) => !/^(# \{ total:|# time=|1\.\.\d+$|TAP version)/.test(l))
    const failed = e.fail > 0 || part.some((l) => l.startsWith('not ok ') && l.includes(` - ${f.file}`))
    const counts = `# { total: ${e.total}, pass: ${e.pass}${e.fail > 0 ? `, fail: ${e.fail}` : ''}${e.skip > 0 ? `, skip: ${e.skip}` : ''}${e.todo > 0 ? `, todo: ${e.todo}` : ''} }`
    const log = logPath(f)
    writeFileSync(log, `TAP version 14\n# ran in ${job.key} (its whole output: ${result.log})\n${part.join('\n')}\n${counts}\n`)
    const cpu = result.cpu === undefined ? undefined : e.cpu + (done.length === 0 ? Math.max(0, result.cpu - own) : 0)
    done.push({ job: f, log, code: failed ? 1 : 0, signal: null, killed: false, seconds: e.seconds, cpu, ownCpu: e.cpu, batch: job.key })
  })
  if (left.length > 0) {
    const suite = job.suite
    suite.notes ??= []
    suite.notes.push(`${job.key} stopped (${result.killed ? `killed after ${Math.round(result.seconds)} s` : `exit ${result.signal ?? result.code}`}) before it ran ${left.map((f) => f.file).join(', ')}: run alone (the batch's log: ${result.log})`)
  }
  return { done, left }
}

// ---- running ------------------------------------------------------------------

const running = new Set()
let passed = 0
let failed = 0
let skipped = 0
const slow = []

function logPath (job) {
  const name = job.kind === 'check' ? job.name : job.kind === 'batch' ? `${job.suite.dir}-${job.suite.label}-batch-${job.n}` : `${job.suite.dir}-${job.suite.label}-${job.file}`
  return join(LOGS, 'files', `${name.replace(/[/\\]/g, '_')}.log`)
}

// CPU seconds of each job (user + system, the process and every child it waited for), where GNU time is
// installed: wall times on a loaded machine say little, CPU time barely changes with the load.
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null

/** `command args` under GNU time when there is one, its figures written to `<log>.cpu`. */
function timed (log, command, args) {
  return TIME === null ? [command, args] : [TIME, ['-f', '%U %S', '-o', `${log}.cpu`, command, ...args]]
}

/** The CPU seconds GNU time wrote for a job (undefined without it, or when the job was killed before it wrote). */
function cpuOf (log) {
  try {
    const m = /^([\d.]+) ([\d.]+)\s*$/m.exec(readFileSync(`${log}.cpu`, 'utf8'))
    return m === null ? undefined : Number(m[1]) + Number(m[2])
  } catch { return undefined }
}

function start (job) {
  mkdirSync(join(LOGS, 'files'), { recursive: true })
  const log = logPath(job)
  const fd = openSync(log, 'w')
  let child
  let limit
  if (job.kind === 'check') {
    child = spawn(...timed(log, 'bash', ['-c', job.command]), { cwd: ROOT, stdio: ['ignore', fd, fd], detached: true })
    limit = 1800
  } else {
    const { dir, env, rc } = job.suite
    // Compiled (scripts/build-tests.mjs) unless it imports TypeScript nothing compiles.
    const compiledArgs = rc.nodeArgs.flatMap((arg) => (arg === LOADER ? COMPILED : [arg]))
    let args
    if (job.kind === 'batch') {
      writeFileSync(`${log}.results`, '')
      const shim = join(ROOT, dir, 'node_modules', '.cms-test', 'tap.mjs')
      args = [...compiledArgs, BATCH_ENTRY, `${log}.results`, shim, ...job.files.flatMap((f) => [f.file, compiledTests[join(ROOT, dir, f.file)].out, String(f.timeout)])]
    } else {
      args = runsCompiled(job) ? [...compiledArgs, compiledTests[join(ROOT, dir, job.file)].out] : [...rc.nodeArgs, job.file]
    }
    child = spawn(...timed(log, process.execPath, args), {
      cwd: join(ROOT, dir),
      env: { ...process.env, ...env, TAP_TIMEOUT: String(job.timeout) },
      stdio: ['ignore', fd, fd],
      detached: true,
    })
    limit = job.timeout + 60
  }
  closeSync(fd)
  const started = Date.now()
  // tap ends a file at its own timeout; this is for a process that does not end then.
  let killed = false
  const timer = setTimeout(() => { killed = true; killGroup(child, 'SIGKILL') }, limit * 1000)
  const entry = { job, child }
  running.add(entry)
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      running.delete(entry)
      resolve({ job, log, code: code ?? 1, signal, killed, seconds: (Date.now() - started) / 1000, cpu: cpuOf(log) })
    })
  })
}

function killGroup (child, signal) {
  try { process.kill(-child.pid, signal) } catch {}
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const { child } of running) killGroup(child, 'SIGTERM')
    process.exit(130)
  })
}

/** Counts of one file's run: tap's last summary line; a crash, a timeout or no summary is a failure. */
function countsOf (result) {
  const text = readFileSync(result.log, 'utf8')
  if (result.job.kind === 'check') return { text, p: result.code === 0 ? 1 : 0, f: result.code === 0 ? 0 : 1, s: 0 }
  const summary = text.split('\n').filter((l) => /^# \{ total: \d+/.test(l)).pop()
  const num = (name) => Number(new RegExp(`\\b${name}: (\\d+)`).exec(summary ?? '')?.[1] ?? 0)
  let f = num('fail')
  if (result.code !== 0 && f === 0) f = 1
  if (summary === undefined) f = Math.max(f, 1)
  return { text, p: num('pass'), f, s: num('skip') }
}

/** The failures of a file's TAP output, each with tap's diagnostics under it. */
function failuresOf (text, max = 40) {
  const lines = text.split('\n')
  const out = []
  for (let i = 0; i < lines.length && out.length < max; i++) {
    if (!/^\s*not ok/.test(lines[i])) continue
    out.push(lines[i])
    const indent = /^\s*/.exec(lines[i])[0].length
    if (lines[i + 1]?.trim() !== '---') continue
    for (let j = i + 1; j < lines.length && out.length < max; j++) {
      out.push(lines[j])
      if (lines[j].trim() === '...' && /^\s*/.exec(lines[j])[0].length <= indent + 2) break
    }
  }
  return out
}

function report (suite) {
  const out = [`== ${suite.title}`]
  let p = 0
  let f = 0
  let s = 0
  let seconds = 0
  let cpu = 0
  for (const r of suite.results.sort((a, b) => (a.job.file < b.job.file ? -1 : 1))) {
    const c = countsOf(r)
    p += c.p; f += c.f; s += c.s; seconds += r.seconds; cpu += r.cpu ?? 0
    if (r.job.kind === 'file') slow.push({ key: r.job.key, seconds: r.seconds })
    if (c.f > 0) {
      if (r.job.kind === 'check') {
        out.push(...c.text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('npm warn')).slice(0, 40).map((l) => `  ${l}`))
      } else {
        const failures = failuresOf(c.text)
        out.push(`  ${r.job.file}: ${r.killed ? `killed after ${Math.round(r.seconds)} s, ` : ''}exit ${r.signal ?? r.code} (log: ${relative(ROOT, r.log).startsWith('..') ? r.log : relative(ROOT, r.log)})`)
        // A crash prints no "not ok": its last lines say why.
        out.push(...(failures.length > 0 ? failures : c.text.trimEnd().split('\n').slice(-20)).map((l) => `    ${l}`))
        if (/ERR_UNKNOWN_FILE_EXTENSION.*\.ts\b/.test(c.text)) out.push('    (it ran compiled, with no TypeScript loader: a file that imports TypeScript at run time says `test-all: loader` in its first lines)')
      }
    }
    for (const m of c.text.matchAll(/^\s*ok \d+ - (.*) # SKIP ?(.*)$/gm)) out.push(`  skipped: ${m[1]} (${m[2]})`)
  }
  out.push(...(suite.notes ?? []).map((note) => `  ${note}`))
  passed += p; failed += f; skipped += s
  out.push(`  -> ${p} passed, ${f} failed${s > 0 ? `, ${s} skipped` : ''}`)
  const cpuText = TIME === null ? '' : `, ${Math.round(cpu)} s of CPU`
  out.push(suite.check ? `  (${Math.round(seconds)} s${cpuText})` : `  (${Math.round(seconds)} s${cpuText} in ${suite.results.length} file${suite.results.length === 1 ? '' : 's'})`)
  // One log per suite as well, the files' logs one after another.
  if (!suite.check) {
    writeFileSync(join(LOGS, `${suite.key.replace(/[/ ]/g, '_')}.log`), suite.results.map((r) => `# ${r.job.file} (${r.seconds.toFixed(1)} s)\n${readFileSync(r.log, 'utf8')}`).join('\n'))
  }
  process.stdout.write(`${out.join('\n')}\n`)
}

function record (result) {
  durations[result.job.key] = Math.round(result.seconds * 10) / 10
  if (result.cpu !== undefined) cpuSeconds[result.job.key] = { cpu: Math.round(result.cpu * 10) / 10, wall: durations[result.job.key], ...(result.batch === undefined ? {} : { batch: result.batch, own: Math.round(result.ownCpu * 10) / 10 }) }
  const suite = result.job.suite
  suite.results.push(result)
  if (suite.results.length === suite.files.length) report(suite)
}

/** The test trees compiled by scripts/build-tests.mjs: source path -> { out, loader } (loader: why it cannot run compiled, or null). */
let compiledTests = {}

for (const suite of suites) if (suite.files.length === 0) { process.stdout.write(`== ${suite.title}\n  (no tests)\n`) }

if (!TSX) {
  // What the loader runs must be the sources as they are (a no-op when nothing changed: a few milliseconds).
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-dist.mjs')], { cwd: ROOT, encoding: 'utf8' })
  if (build.status !== 0) {
    process.stdout.write(`build-dist failed, so the tests cannot run compiled:\n${build.stdout}${build.stderr}`)
    process.exit(1)
  }
  const tests = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-tests.mjs')], { cwd: ROOT, encoding: 'utf8' })
  if (tests.status !== 0) {
    process.stdout.write(`build-tests failed, so the tests cannot run compiled:\n${tests.stdout}${tests.stderr}`)
    process.exit(1)
  }
  if (process.env.CMS_TEST_COMPILED !== '0') compiledTests = readJson(join(ROOT, 'node_modules', '.cms-test', 'manifest.json')).files ?? {}
}

// ---- idle cores: jobs more ------------------------------------------------------
//
// A job that waits (its timers, a child process, the browser, the database server's
// work) leaves its core idle. Run by CPU seconds, the batches gather such files:
// on 2 cores a batch of them took 77 s for 20 s of CPU, and the cores were busy
// about 83 % of the run. So beyond JOBS, up to FILL more jobs start while the jobs
// running are expected to leave a core's share free: each job's share is its CPU
// over its wall seconds in the last run (scripts/test-cpu.json and
// test-durations.json, or this machine's), counted as a whole core from 0.6 up
// (the database server's work for it is in neither figure) and for a job never
// timed. The first queued job that fits starts. And when /proc/stat shows the
// machine's cores idle for two 2-second ticks (another process's work counts as
// busy), the next job starts whatever the shares say. CMS_TEST_FILL=0 keeps JOBS.
const FILL = process.env.CMS_TEST_FILL === '0' ? 0 : 2
const IDLE_TICK_MS = 2000
/** The idle share of the cores over a tick that counts as idle (0.35 of 2 cores: most of one). */
const IDLE_SHARE = 0.35
/** A job at least this busy in its last run is counted as a whole core. */
const BUSY = 0.6
/** The least a job counts for (a file whose children's CPU its figure misses looks idle). */
const MIN_SHARE = 0.25
let lastTimes
let idleTicks = 0
/** Whether the cores were idle for the last two ticks (false where /proc/stat cannot be read). */
function coresIdle () {
  let times
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number)
    times = { total: fields.reduce((a, b) => a + b, 0), idle: fields[3] + (fields[4] ?? 0) }
  } catch { return false }
  const before = lastTimes
  lastTimes = times
  if (before === undefined || times.total <= before.total) return false
  idleTicks = (times.idle - before.idle) / (times.total - before.total) >= IDLE_SHARE ? idleTicks + 1 : 0
  return idleTicks >= 2
}

/** The share of a core a job is expected to keep busy (see above). */
function shareOf (job) {
  const files = job.kind === 'batch' ? job.files : [job]
  const timed = files.every((f) => cpuHistory[f.key] !== undefined || (f.kind === 'file' && cpuByFile.has(`${f.suite.dir} ${f.file}`)))
  if (!timed) return 1
  const ratio = files.reduce((sum, f) => sum + cpuEstimate(f), 0) / Math.max(0.1, estimate(job))
  return ratio >= BUSY ? 1 : Math.max(MIN_SHARE, ratio)
}

const planned = BATCH ? batched(jobs) : [...jobs]
planned.sort((a, b) => estimate(b) - estimate(a))
const queue = [...planned]
/** The jobs running, by promise: the share of a core each is expected to keep busy (shareOf). */
const inFlight = new Map()
const durations = {}
const cpuSeconds = {}
const startedAt = Date.now()
const startAt = (i) => {
  const [job] = queue.splice(i, 1)
  const p = start(job).then((result) => { inFlight.delete(p); return result })
  inFlight.set(p, shareOf(job))
}
let filled = 0
while (queue.length > 0 || inFlight.size > 0) {
  while (inFlight.size < JOBS && queue.length > 0) startAt(0)
  while (inFlight.size < JOBS + FILL && queue.length > 0) {
    const busy = [...inFlight.values()].reduce((sum, x) => sum + x, 0)
    const fits = queue.findIndex((job) => busy + shareOf(job) <= JOBS)
    if (fits < 0) break
    startAt(fits)
    filled++
  }
  let timer
  const result = await Promise.race([...inFlight.keys(), new Promise((resolve) => { timer = setTimeout(resolve, IDLE_TICK_MS, null) })])
  clearTimeout(timer)
  if (result === null) {
    if (coresIdle() && inFlight.size < JOBS + FILL && queue.length > 0) { startAt(0); filled++; idleTicks = 0 }
    continue
  }
  if (result.job.kind === 'batch') {
    if (result.cpu !== undefined) cpuSeconds[result.job.key] = { cpu: Math.round(result.cpu * 10) / 10, wall: Math.round(result.seconds * 10) / 10, files: result.job.files.map((f) => f.file) }
    const { done, left } = unbatch(result)
    for (const r of done) record(r)
    // The files the batch did not start (it crashed or was killed before them) run alone, next.
    queue.unshift(...left)
  } else {
    record(result)
  }
}

try { writeFileSync(HISTORY, JSON.stringify({ ...readJson(HISTORY), ...durations }, null, 1)) } catch {}
// Each file's CPU seconds (a batched file's own), for sizing the next run's batches.
const fileCpu = Object.fromEntries(Object.entries(cpuSeconds).filter(([key]) => !key.startsWith('check ') && !/ batch \d+$/.test(key)).map(([key, x]) => [key, x.own ?? x.cpu]))
try { writeFileSync(CPU_HISTORY, JSON.stringify({ ...readJson(CPU_HISTORY), ...fileCpu }, null, 1)) } catch {}
process.stdout.write(`slowest files: ${slow.sort((a, b) => b.seconds - a.seconds).slice(0, 8).map((x) => `${x.key} ${Math.round(x.seconds)} s`).join(', ')}\n`)
// Each job's CPU and wall seconds, for comparing runs whatever the load (<logs>/cpu.json).
writeFileSync(join(LOGS, 'cpu.json'), JSON.stringify(cpuSeconds, null, 1))
// A batched file's share is in its batch's figure already.
const cpuTotal = Object.values(cpuSeconds).reduce((sum, x) => sum + (x.batch === undefined ? x.cpu : 0), 0)
const batches = planned.filter((job) => job.kind === 'batch')
const inBatches = batches.reduce((sum, job) => sum + job.files.length, 0)
process.stdout.write(`${jobs.length} jobs${batches.length > 0 ? ` (${inBatches} files in ${batches.length} batches)` : ''}, ${JOBS} at a time${filled > 0 ? ` (${filled} started beside them, the cores idle)` : ''}: ${Math.round((Date.now() - startedAt) / 1000)} s${TIME === null ? '' : `, ${Math.round(cpuTotal)} s of CPU`}\n`)
writeFileSync(join(LOGS, 'totals'), `${passed} ${failed} ${skipped}\n`)
