/**
 * Jobs off the request thread: each runs in a worker thread of its own
 * (sandbox-worker.mjs), so a request waiting on one never holds the event
 * loop, and a job that does not end is ended with its thread. At most
 * `MAX_RUNNING` jobs run at once and `MAX_WAITING` wait; more are
 * `503 assistant_busy`. (The core has no worker pool yet: when it has one,
 * the check jobs move to it; the execute job keeps a thread of its own.)
 */
import { Worker } from 'node:worker_threads'
import { assistantErrors } from './errors.js'

const MAX_RUNNING = 2
const MAX_WAITING = 32
/** Time a thread gets beyond its job's own limit, once its job started, before it is ended from outside. */
const GRACE_MS = 5_000
/**
 * Time a thread gets to start (spawn, load QuickJS) before its job's limit counts: on a loaded machine that
 * alone took more than the limit and its grace, and code that runs in milliseconds was answered as too slow.
 */
const STARTUP_MS = 60_000

export interface ExecuteAnswer {
  success: boolean
  return_value: unknown
  output: string
  errors: Array<{ type: string, message: string, file: string, line: number | null }>
  execution_time_ms: number
  requires_reload: 'none'
  error_message?: string
  error_class?: string
}

export type CheckAnswer =
  | { ok: true }
  | { ok: false, code: 'forbidden_function', name: string, file: string }
  | { ok: false, code: 'validation_failed', message: string, details: Record<string, unknown> }

export interface SandboxLimits {
  timeoutMs: number
  memoryBytes: number
}

let running = 0
const waiting: Array<() => void> = []

async function slot (): Promise<() => void> {
  if (running >= MAX_RUNNING) {
    if (waiting.length >= MAX_WAITING) throw assistantErrors.assistant_busy()
    await new Promise<void>((resolve) => waiting.push(resolve))
  } else {
    running++
  }
  return () => {
    const next = waiting.shift()
    if (next !== undefined) next()
    else running--
  }
}

async function inWorker<T> (job: Record<string, unknown>, limitMs: number, onLimit: () => T): Promise<T> {
  const release = await slot()
  try {
    return await new Promise<T>((resolve, reject) => {
      const worker = new Worker(new URL('./sandbox-worker.mjs', import.meta.url), {
        workerData: job,
        // Node's own heap of the thread, apart from the sandbox's limit inside WebAssembly.
        resourceLimits: { maxOldGenerationSizeMb: 256 },
        // The parent's loader flags (tsx) are not needed by a plain .mjs file.
        execArgv: []
      })
      let settled = false
      const finish = (fn: () => void): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        fn()
        void worker.terminate()
      }
      const limit = (ms: number): NodeJS.Timeout => setTimeout(() => { finish(() => { resolve(onLimit()) }) }, ms)
      let timer = limit(STARTUP_MS + limitMs + GRACE_MS)
      worker.on('message', (m: { started?: true, result?: T, failed?: string }) => {
        // The job's own limit counts from here, as the thread's interrupt handler counts it.
        if (m.started === true) { clearTimeout(timer); timer = limit(limitMs + GRACE_MS); return }
        finish(() => { m.result !== undefined ? resolve(m.result) : reject(new Error(`sandbox job failed: ${m.failed ?? 'no answer'}`)) })
      })
      worker.on('error', (err) => { finish(() => { reject(err) }) })
      worker.on('exit', (code) => { finish(() => { reject(new Error(`sandbox thread ended with code ${code}`)) }) })
    })
  } finally {
    release()
  }
}

/** Runs `code` as JavaScript in the sandbox; the answer of `POST /super-admin/execute`. */
export async function executeInSandbox (code: string, limits: SandboxLimits): Promise<ExecuteAnswer> {
  return await inWorker<ExecuteAnswer>({ kind: 'execute', code, ...limits }, limits.timeoutMs, () => ({
    success: false,
    return_value: null,
    output: '',
    errors: [],
    execution_time_ms: limits.timeoutMs,
    requires_reload: 'none',
    error_class: 'TimeLimitExceeded',
    error_message: `The code ran longer than the time limit of ${limits.timeoutMs} ms and was stopped.`
  }))
}

/**
 * The content checks of a file set off the request thread: PHP files
 * scanned with `forbidden` (a pattern's source, matched case-insensitively),
 * JavaScript files compiled (never run).
 */
export async function checkInSandbox (files: ReadonlyArray<{ name: string, content: string }>, forbidden: string): Promise<CheckAnswer> {
  return await inWorker<CheckAnswer>({ kind: 'check', files, forbidden }, 10_000 * Math.max(1, files.length), () => {
    throw assistantErrors.assistant_busy(undefined, 'Validating the files took too long.')
  })
}
