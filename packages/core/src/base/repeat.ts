/**
 * A background job's loop: `work` runs every `intervalMs` after the previous
 * run ended (the first after `firstMs`; never two at once, however long one
 * takes; `work` handles its own errors), on a timer that
 * does not keep the process alive. The answer stops it and waits for the run
 * under way, so nothing touches the database after a close.
 */
export function repeatEvery (intervalMs: number, work: () => Promise<void>, opts: { firstMs?: number } = {}): () => Promise<void> {
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  const tick = (delay: number): void => {
    timer = setTimeout(() => { running = work().finally(() => { if (!stopped) tick(intervalMs) }) }, delay)
    timer.unref()
  }
  tick(opts.firstMs ?? intervalMs)
  return async () => {
    stopped = true
    clearTimeout(timer)
    await running
  }
}
