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
/** Deepest nesting of a value handed out of the sandbox (as deep as a request body may nest): deeper ones are not copied out. */
const DEPTH_MAX = 512
/** The nesting of a value, measured inside the sandbox without recursion (cycles counted once), stopping past `max`. */
const DEPTH_OF = `(function (v, max) {
  const seen = new Set(); const stack = [[v, 1]]; let deepest = 0
  while (stack.length > 0) {
    const [x, d] = stack.pop()
    if (x === null || typeof x !== 'object' || seen.has(x)) continue
    seen.add(x)
    if (d > deepest) deepest = d
    if (deepest > max) return deepest
    for (const k of Object.keys(x)) stack.push([x[k], d + 1])
  }
  return deepest
})`

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
  // Values leave the sandbox only when they nest at most DEPTH_MAX levels: copying a deeper one out
  // (its JSON inside QuickJS, then here) overflowed a stack and ended the thread with no answer.
  const depthOf = vm.unwrapResult(vm.evalCode(DEPTH_OF, 'depth.js'))
  const limitHandle = vm.newNumber(DEPTH_MAX)
  const tooDeep = (h) => {
    const r = vm.callFunction(depthOf, vm.undefined, h, limitHandle)
    if (r.error !== undefined) { r.error.dispose(); return true }
    const d = vm.getNumber(r.value)
    r.value.dispose()
    return d > DEPTH_MAX
  }
  const TOO_DEEP = `[a value nested deeper than ${DEPTH_MAX} levels]`
  const dumpSafe = (h) => tooDeep(h) ? TOO_DEEP : vm.dump(h)
  const text = (args) => args.map((h) => {
    const v = dumpSafe(h)
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
      if (errors.length < ERRORS_CAP) errors.push({ type: 'Error', message: String(dumpSafe(jobs.error)?.message ?? 'a queued job failed'), file: 'code', line: null })
      jobs.error.dispose()
    }
  }
  const answer = { success: true, return_value: null, output, errors, execution_time_ms: 0, requires_reload: 'none' }
  if (result.error !== undefined) {
    const err = dumpSafe(result.error)
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
    // A promise is answered by its outcome once the queued jobs ran (dumping the promise itself
    // freed its handle, and the dispose after it threw: every async function's result was a 500).
    const state = vm.getPromiseState(result.value)
    if (state.notAPromise === true || state.type === 'fulfilled') {
      const value = dumpSafe(state.value)
      if (value === TOO_DEEP && errors.length < ERRORS_CAP) errors.push({ type: 'Warning', message: `The return value nests deeper than ${DEPTH_MAX} levels and is not returned.`, file: 'code', line: null })
      answer.return_value = value === undefined || value === TOO_DEEP ? null : value
    } else if (state.type === 'rejected') {
      const err = dumpSafe(state.error)
      answer.success = false
      answer.error_class = typeof err?.name === 'string' ? err.name : 'Error'
      answer.error_message = typeof err?.message === 'string' ? err.message : String(err)
    } else if (errors.length < ERRORS_CAP) {
      errors.push({ type: 'Warning', message: 'The code returned a promise that did not settle.', file: 'code', line: null })
    }
    if (state.notAPromise !== true) (state.type === 'fulfilled' ? state.value : state.error)?.dispose?.()
    result.value.dispose()
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
    depthOf.dispose()
    limitHandle.dispose()
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
