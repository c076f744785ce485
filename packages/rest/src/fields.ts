/**
 * `_fields`: a comma or space separated list of (dot) paths. The output keeps
 * the data's own key order. A parent listed whole wins over its children.
 */
type FieldTree = Map<string, FieldTree | true>

export function parseFields (value: unknown): string[] {
  const raw = Array.isArray(value) ? value.join(',') : typeof value === 'string' ? value : ''
  return raw.split(/[\s,]+/).map((f) => f.trim()).filter((f) => f !== '')
}

function buildTree (fields: string[]): FieldTree {
  const root: FieldTree = new Map()
  for (const field of fields) {
    const parts = field.split('.')
    let node = root
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!
      const existing = node.get(part)
      if (existing === true) break
      if (i === parts.length - 1) {
        node.set(part, true)
        break
      }
      let next = existing
      if (next === undefined) {
        next = new Map()
        node.set(part, next)
      }
      node = next
    }
  }
  return root
}

function pick (data: unknown, tree: FieldTree): unknown {
  if (Array.isArray(data)) return data.map((item) => pick(item, tree))
  if (typeof data !== 'object' || data === null) return data
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(data)) {
    const sub = tree.get(key)
    if (sub === undefined) continue
    out[key] = sub === true ? value : pick(value, sub)
  }
  return out
}

export function filterFields (data: unknown, fields: string[]): unknown {
  return pick(data, buildTree(fields))
}

/** Whether a top-level key is wanted by a `_fields` list (so its work can be skipped). */
export function wantsField (fields: string[] | undefined, key: string): boolean {
  return fields === undefined || fields.some((f) => f === key || f.startsWith(`${key}.`))
}
