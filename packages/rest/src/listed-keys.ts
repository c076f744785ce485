/**
 * The keys of a large object of a request body as the JSON thread's pieces brought them (json-tasks.ts
 * `assemblePiece`), in `Object.keys` order (the thread listed them so), so that the sliced walks of the body's
 * arguments need not list them at once on the request thread (issue 27: `Object.entries` of a 22,500-member object
 * was a task of 20-28 ms under load, `Object.keys` of it about 5 ms). A list holds only while the body is as it was
 * put together: each is taken once, and none is given once the body's arguments are checked (`closeListedKeys`,
 * pipeline.ts), when a handler may have changed its objects.
 */
const listed = new WeakMap<object, { root: object, keys: string[] }>()
const closed = new WeakSet<object>()

/** `keys`, the next ones of `o` (a container of the body `root`), noted in order. */
export function noteKeys (root: object, o: object, keys: readonly string[]): void {
  let l = listed.get(o)
  if (l === undefined) listed.set(o, l = { root, keys: [] })
  for (const k of keys) l.keys.push(k)
}

/** The keys noted of `o`, taken: undefined when it was not put together from pieces, or its body is checked. */
export function takeListedKeys (o: unknown): string[] | undefined {
  if (typeof o !== 'object' || o === null) return undefined
  const l = listed.get(o)
  if (l === undefined) return undefined
  listed.delete(o)
  return closed.has(l.root) ? undefined : l.keys
}

/** The body `root`'s arguments are checked: its lists are no longer given. */
export function closeListedKeys (root: unknown): void {
  if (typeof root === 'object' && root !== null) closed.add(root)
}
