/**
 * Dates: stored as UTC instants; `date` fields are the site's wall-clock
 * time (option `timezone_string`); responses carry no offset.
 */

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatter (timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone)
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit'
    })
    formatters.set(timeZone, f)
  }
  return f
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0')

/** `2026-01-31T09:30:00` in UTC. */
export function formatGmt (d: Date): string {
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
}

/** `2026-01-31T10:30:00` as the wall clock of `timeZone` shows the instant. */
export function formatLocal (d: Date, timeZone: string): string {
  if (timeZone === 'UTC') return formatGmt(d)
  const parts: Record<string, string> = {}
  for (const p of formatter(timeZone).formatToParts(d)) parts[p.type] = p.value
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`
}

/** Offset of `timeZone` from UTC at the instant, in milliseconds. */
function offsetAt (ms: number, timeZone: string): number {
  const local = formatLocal(new Date(ms), timeZone)
  return Date.parse(`${local}Z`) - Math.floor(ms / 1000) * 1000
}

/** The instant a wall-clock time of `timeZone` stands for (the earlier one in a fold). */
export function fromLocal (wall: string, timeZone: string): Date {
  const asUtc = Date.parse(`${wall}Z`)
  if (timeZone === 'UTC') return new Date(asUtc)
  let guess = asUtc - offsetAt(asUtc, timeZone)
  const second = asUtc - offsetAt(guess, timeZone)
  if (second !== guess) guess = Math.min(guess, second)
  return new Date(guess)
}

const DATE_RE = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.\d+)?(Z|[+-]\d{2}(?::?\d{2})?)?\n?$/

/**
 * A request date as the core reads it: with an offset (or `Z`) it is that
 * instant; without one it is site time, or UTC when `isUtc` (`date_gmt`,
 * whose offset the core replaces by +00:00). Null when unparseable.
 */
export function parseRequestDate (value: string, timeZone: string, isUtc = false): Date | null {
  const m = DATE_RE.exec(value)
  if (m === null) return null
  const wall = `${m[1]}T${m[2]}`
  let ms: number
  if (isUtc || m[3] === 'Z') {
    ms = Date.parse(`${wall}Z`)
  } else if (m[3] !== undefined) {
    const off = m[3].length === 3 ? `${m[3]}:00` : m[3].includes(':') ? m[3] : `${m[3].slice(0, 3)}:${m[3].slice(3)}`
    ms = Date.parse(`${wall}${off}`)
  } else {
    ms = fromLocal(wall, timeZone).getTime()
  }
  return Number.isNaN(ms) ? null : new Date(Math.floor(ms / 1000) * 1000)
}

/** Now, to the second (what the store keeps). */
export function nowSeconds (): Date {
  return new Date(Math.floor(Date.now() / 1000) * 1000)
}
