/**
 * Epochs: values the store renews in the transaction of one kind of change
 * (credentials, settings, webhooks, activation: `cms_epochs`), read with the
 * commit horizon by one statement (the store's `snapshot()`). A value read
 * after a snapshot was taken is valid while the epoch of its kind reads the
 * same, whatever else was committed meanwhile; where the store has no such
 * epoch (a database not yet migrated), while the horizon does.
 */

/**
 * The commit horizon and the epochs read with it (the store's `Snapshot`).
 * No horizon inside a batch's shared transaction: its epochs are that
 * transaction's view (what it changed left out), and nothing is kept or
 * reused by horizon there (the store's joined.ts).
 */
export interface KernelSnapshot {
  horizon: string | undefined
  epochs: Readonly<Record<string, string>>
}

/**
 * The token a value of kind `name` is kept under: `<name> <epoch>`, else
 * the horizon (never equal to an epoch's token); undefined without a
 * snapshot or either (nothing is reused).
 */
export function epochToken (snapshot: KernelSnapshot | undefined, name: string): string | undefined {
  if (snapshot === undefined) return undefined
  const epoch = snapshot.epochs[name]
  return epoch === undefined ? snapshot.horizon : `${name} ${epoch}`
}

/**
 * The kernel's way to take a snapshot: its `snapshot`, else its `horizon`
 * with no epochs; answers undefined (nothing reused) with neither.
 */
export function snapshotAsker (opts: { snapshot?: () => Promise<KernelSnapshot | undefined>, horizon?: () => Promise<string | undefined> }): () => Promise<KernelSnapshot | undefined> {
  if (opts.snapshot !== undefined) return opts.snapshot
  const horizon = opts.horizon
  if (horizon === undefined) return async () => undefined
  return async () => {
    const h = await horizon()
    return h === undefined ? undefined : { horizon: h, epochs: NO_EPOCHS }
  }
}

/** Whether the kernel reuses anything (it was given a horizon or a snapshot). */
export function reuses (opts: { snapshot?: unknown, horizon?: unknown }): boolean {
  return opts.snapshot !== undefined || opts.horizon !== undefined
}

const NO_EPOCHS: Readonly<Record<string, string>> = Object.freeze({})
