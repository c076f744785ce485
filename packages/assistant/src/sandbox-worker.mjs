/**
 * The assistant's worker thread (sandbox.ts starts one per job): code runs
 * only here, in a QuickJS WebAssembly runtime with a memory limit and an
 * interrupt handler, with no host function but a captured `console` (no
 * file, network, process or module access: QuickJS has none of its own).
 * Never node's `vm` or `eval`.
 *
 * Jobs (workerData):
 *   { kind: 'execute', code, timeoutMs, memoryBytes }  -> the execute answer's fields
 *   { kind: 'check', files: [{name, content}], forbidden } -> { ok: true } | { ok: false, code, message, details }
 *
 * `check` is the content part of snippet validation, kept off the request
 * thread: the forbidden-function scan of PHP files (never run) and a parse
 * of JavaScript files (acorn: parsed, never run).
 */
import { parentPort, workerData } from 'node:worker_threads'
import * as acorn from 'acorn'
import { getQuickJS } from 'quickjs-emscripten'

const OUTPUT_CAP = 1024 * 1024
const ERRORS_CAP = 100

async function execute ({ code, timeoutMs, memoryBytes }) {
  const QuickJS = await getQuickJS()
  const runtime = QuickJS.newRuntime()
  runtime.setMemoryLimit(memoryBytes)
  runtime.setMaxStackSize(1024 * 1024)
  let interrupted = false
  // The host counts its own limit from here too (sandbox.ts): starting the thread is not the code's time.
  parentPort.postMessage({ started: true })
  const started = performance.now()
  const deadline = started + timeoutMs
  runtime.setInterruptHandler(() => {
    if (performance.now() > deadline) interrupted = true
    return interrupted
  })
  // No module may be loaded: an import is refused inside the sandbox.
  runtime.setModuleLoader((name) => { throw new Error(`modules are not available in the sandbox: ${name}`) })
  const vm = runtime.newContext()
  let output = ''
  const errors = []
  const text = (args) => args.map((h) => {
    const v = vm.dump(h)
    return typeof v === 'string' ? v : JSON.stringify(v) ?? String(v)
  }).join(' ')
  const consoleObject = vm.newObject()
  for (const level of ['log', 'info', 'debug', 'warn', 'error']) {
    const fn = vm.newFunction(level, (...args) => {
      const line = text(args)
      if (level === 'warn' || level === 'error') {
        if (errors.length < ERRORS_CAP) errors.push({ type: level === 'warn' ? 'Warning' : 'Error', message: line.slice(0, 4096), file: 'code', line: null })
      } else if (output.length < OUTPUT_CAP) {
        output += `${line}\n`.slice(0, OUTPUT_CAP - output.length)
      }
    })
    vm.setProp(consoleObject, level, fn)
    fn.dispose()
  }
  vm.setProp(vm.global, 'console', consoleObject)
  consoleObject.dispose()

  // A top-level `return` (as the product's PHP code has) is allowed: such code runs as a function body.
  const probe = vm.evalCode(code, 'code.js', { compileOnly: true })
  let source = code
  if (probe.error !== undefined) {
    const err = vm.dump(probe.error)
    probe.error.dispose()
    if (/return/.test(String(err?.message))) source = `(function () {\n${code}\n})()`
  } else {
    probe.value.dispose()
  }
  const result = vm.evalCode(source, 'code.js')
  // Promise callbacks the code queued run too, under the same limits.
  if (result.error === undefined && !interrupted) {
    const jobs = runtime.executePendingJobs()
    if (jobs.error !== undefined) {
      if (errors.length < ERRORS_CAP) errors.push({ type: 'Error', message: String(vm.dump(jobs.error)?.message ?? 'a queued job failed'), file: 'code', line: null })
      jobs.error.dispose()
    }
  }
  const answer = { success: true, return_value: null, output, errors, execution_time_ms: 0, requires_reload: 'none' }
  if (result.error !== undefined) {
    const err = vm.dump(result.error)
    result.error.dispose()
    answer.success = false
    if (interrupted) {
      answer.error_class = 'TimeLimitExceeded'
      answer.error_message = `The code ran longer than the time limit of ${timeoutMs} ms and was stopped.`
    } else if (/out of memory/i.test(String(err?.message ?? err))) {
      answer.error_class = 'MemoryLimitExceeded'
      answer.error_message = `The code used more than the memory limit of ${memoryBytes} bytes and was stopped.`
    } else {
      answer.error_class = typeof err?.name === 'string' ? err.name : 'Error'
      answer.error_message = typeof err?.message === 'string' ? err.message : String(err)
    }
  } else {
    const value = vm.dump(result.value)
    result.value.dispose()
    answer.return_value = value === undefined ? null : value
  }
  if (interrupted && answer.success) {
    // Stopped in a queued promise callback.
    answer.success = false
    answer.error_class = 'TimeLimitExceeded'
    answer.error_message = `The code ran longer than the time limit of ${timeoutMs} ms and was stopped.`
  }
  answer.output = output
  answer.execution_time_ms = Math.round((performance.now() - started) * 100) / 100
  try {
    vm.dispose()
    runtime.dispose()
  } catch {
    // A runtime stopped out of memory may not free cleanly; the thread ends anyway.
  }
  return answer
}

async function check ({ files, forbidden }) {
  const FORBIDDEN = new RegExp(forbidden, 'i')
  for (const file of files) {
    const ext = file.name.slice(file.name.lastIndexOf('.') + 1).toLowerCase()
    if (ext === 'php') {
      const m = FORBIDDEN.exec(file.content)
      if (m !== null) return { ok: false, code: 'forbidden_function', name: m[1].toLowerCase(), file: file.name }
    } else if (ext === 'js') {
      const failure = parse(file.content)
      if (failure !== undefined) return { ok: false, code: 'validation_failed', message: `Snippet syntax error in ${file.name}: ${failure.message}`, details: { file: file.name, ...failure } }
    }
  }
  return { ok: true }
}

/**
 * A JavaScript file's first syntax error ({message, line, column}, the
 * column counted from 1), or undefined: parsed with acorn, never run. A file
 * that is not a script but is a module (import/export) is valid.
 */
function parse (content) {
  const options = { ecmaVersion: 'latest', allowHashBang: true, locations: true }
  try {
    acorn.parse(content, { ...options, sourceType: 'script' })
    return undefined
  } catch (scriptError) {
    if (/\b(import|export)\b/.test(content)) {
      try {
        acorn.parse(content, { ...options, sourceType: 'module' })
        return undefined
      } catch (moduleError) {
        return located(moduleError)
      }
    }
    return located(scriptError)
  }
}

function located (err) {
  if (!(err instanceof SyntaxError) || err.loc === undefined) throw err
  return { message: err.message.replace(/ \(\d+:\d+\)$/, ''), line: err.loc.line, column: err.loc.column + 1 }
}

const job = workerData
// A check's limit counts once the thread runs (an execute's once QuickJS is loaded, above).
if (job.kind !== 'execute') parentPort.postMessage({ started: true })
const run = job.kind === 'execute' ? execute(job) : check(job)
run.then((result) => { parentPort.postMessage({ result }) }, (err) => { parentPort.postMessage({ failed: String(err?.message ?? err) }) })
