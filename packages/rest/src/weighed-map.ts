/**
 * Values by key within a budget of their weights (bytes for kept answers; one
 * each where a count is enough). The oldest go first when a new value would
 * not fit, and a value weighing over a tenth of the budget is not kept (one
 * large value must not push out everything else).
 */
export class WeighedMap<T> {
  private readonly entries = new Map<string, { value: T, weight: number }>()
  private total = 0

  constructor (private readonly budget: number) {}

  /** The weight of what is kept. */
  get weight (): number {
    return this.total
  }

  get (key: string): T | undefined {
    return this.entries.get(key)?.value
  }

  has (key: string): boolean {
    return this.entries.has(key)
  }

  /** Keeps `value`, of the given weight, in place of what `key` held. */
  set (key: string, value: T, weight: number): void {
    this.delete(key)
    if (weight > this.budget / 10) return
    // A Map iterates in insertion order: the first key is the oldest.
    for (const oldest of this.entries.keys()) {
      if (this.total + weight <= this.budget) break
      this.delete(oldest)
    }
    this.entries.set(key, { value, weight })
    this.total += weight
  }

  delete (key: string): void {
    const entry = this.entries.get(key)
    if (entry === undefined) return
    this.total -= entry.weight
    this.entries.delete(key)
  }
}
