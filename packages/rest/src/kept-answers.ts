/**
 * Rendered answers kept for reuse, by request address, within a memory
 * budget. A count alone would not bound them: one page of a hundred long
 * posts can weigh megabytes. The oldest kept go first when a new answer would
 * not fit, and an answer larger than a tenth of the budget is not kept.
 */
export class KeptAnswers<T> {
  private readonly entries = new Map<string, { value: T, size: number }>()
  private total = 0

  constructor (private readonly budget: number) {}

  /** Bytes held by the kept answers. */
  get size (): number {
    return this.total
  }

  get (key: string): T | undefined {
    return this.entries.get(key)?.value
  }

  has (key: string): boolean {
    return this.entries.has(key)
  }

  /** Keeps `value`, which weighs `size` bytes, in place of what `key` held. */
  set (key: string, value: T, size: number): void {
    this.delete(key)
    if (size > this.budget / 10) return
    // A Map iterates in insertion order: the first key is the oldest.
    for (const oldest of this.entries.keys()) {
      if (this.total + size <= this.budget) break
      this.delete(oldest)
    }
    this.entries.set(key, { value, size })
    this.total += size
  }

  private delete (key: string): void {
    const entry = this.entries.get(key)
    if (entry === undefined) return
    this.total -= entry.size
    this.entries.delete(key)
  }
}
