// The JSON thread (json-thread.ts): runs json-tasks on messages `{ id, task, input }`
// and answers `{ id, outcome }`, moving an answer's bytes rather than copying them.
// Plain JavaScript so the thread starts without a TypeScript loader in the built
// image (dist/ holds json-tasks.js beside this file); in a checkout, where worker
// threads do not inherit the process's loader, the source is loaded through tsx's API.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { MessageChannel, parentPort } from 'node:worker_threads'

const source = new URL('./json-tasks.ts', import.meta.url)
const tasks = existsSync(fileURLToPath(source))
  ? await (await import('tsx/esm/api')).tsImport(source.href, import.meta.url)
  : await import('./json-tasks.js')

parentPort.on('message', ({ id, task, input }) => {
  try {
    const outcome = tasks[task](input)
    // The answer's bytes, or a parsed value's long strings (moved-strings.ts), are moved rather than copied.
    const transfer = outcome.bytes !== undefined ? [outcome.bytes.buffer] : (outcome.moved ?? []).map((m) => m.bytes.buffer)
    // A large parsed value's pieces wait on a port of their own, which the caller's thread reads one a turn
    // (receiveMessageOnPort): messages on the thread's own port would all be deserialized in one task.
    if (outcome.pieces !== undefined) {
      const { port1, port2 } = new MessageChannel()
      for (const piece of outcome.pieces) port1.postMessage(piece)
      port1.close()
      outcome.count = outcome.pieces.length
      delete outcome.pieces
      outcome.port = port2
      transfer.push(port2)
    }
    parentPort.postMessage({ id, outcome }, transfer)
  } catch (err) {
    parentPort.postMessage({ id, failed: String(err) })
  }
})
