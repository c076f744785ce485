/**
 * What JSON.stringify writes on the request thread, by size (issue 27: a
 * megabyte of builder data written as JSON there was one long task). Tests
 * count the calls over 64 KiB, never time them.
 */

/**
 * Runs `work` with JSON.stringify on this thread watched: the sizes of what it wrote over 64 KiB, `except` (a text the
 * test itself writes: the request's body) aside.
 */
export async function largeStringifies<T> (except: string, work: () => Promise<T>): Promise<{ value: T, sizes: number[] }> {
  const sizes: number[] = []
  const stringify = JSON.stringify
  JSON.stringify = function (this: unknown, ...args: Parameters<typeof stringify>): string {
    const out = stringify.apply(JSON, args)
    if (typeof out === 'string' && out.length > 64 * 1024 && out !== except) sizes.push(out.length)
    return out
  } as typeof JSON.stringify
  try {
    return { value: await work(), sizes }
  } finally {
    JSON.stringify = stringify
  }
}
