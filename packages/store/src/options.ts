/**
 * Site options: a small typed key/value registry stored in the `options`
 * table. Unset options read as their default.
 */
import { eq, sql } from 'drizzle-orm'
import { dbOf, executeNamed } from './db.js'
import type { Queryable, Store } from './db.js'
import { options as optionsTable } from './schema.js'

export type OptionType = 'string' | 'integer'
export type OptionValue = string | number

export interface OptionSpec<V extends OptionValue = OptionValue> {
  type: V extends string ? 'string' : 'integer';
  default: V;
  description: string;
  /** Allowed values (checked after type coercion). */
  enum?: readonly V[];
  /** Inclusive bounds for integers. */
  minimum?: number;
  maximum?: number;
  /** Extra check / normalisation after type coercion; throw `OptionError` or return the value to store. */
  normalize?: (value: V) => V;
  /**
   * Shown and written through `/cms/v2/settings`: `true` under the option's
   * own name, or under `name`, with `title` as its label and `format`
   * (`email`, `uri`) checked by the REST layer.
   */
  showInRest?: boolean | { name?: string; title?: string; format?: string };
}

export type OptionErrorCode = 'unknown_option' | 'invalid_option_value'

/** Unknown option name or a value that does not fit the option. */
export class OptionError extends Error {
  constructor (
    readonly code: OptionErrorCode,
    message: string,
    readonly option: string
  ) {
    super(message)
    this.name = 'OptionError'
  }
}

function invalid (name: string, why: string): never {
  throw new OptionError('invalid_option_value', `Invalid value for option "${name}": ${why}`, name)
}

function normalizeUrl (name: string) {
  return (value: string): string => {
    if (value === '') return value
    let url: URL
    try {
      url = new URL(value)
    } catch {
      invalid(name, 'must be an absolute http(s) URL or empty')
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') invalid(name, 'must be an http(s) URL')
    return value.replace(/\/+$/, '')
  }
}

/** True for 'UTC' and for IANA zone names Intl.DateTimeFormat accepts. */
export function isValidTimezone (tz: string): boolean {
  return canonicalTimezone(tz) !== undefined
}

function canonicalTimezone (tz: string): string | undefined {
  if (tz === 'UTC') return tz
  // Names only ("Europe/Paris", "Etc/GMT+5"); no bare offsets like "+05:00".
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(tz)) return undefined
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone
  } catch {
    return undefined
  }
}

const builtinOptions = {
  name: { type: 'string', default: 'My CMS Site', description: 'Site title.' },
  description: { type: 'string', default: '', description: 'Site tagline.' },
  url: {
    type: 'string',
    default: '',
    description: 'Site URL; empty means derived from the request / base URL.',
    normalize: normalizeUrl('url'),
  },
  home: {
    type: 'string',
    default: '',
    description: 'Home URL; empty means derived from the request / base URL.',
    normalize: normalizeUrl('home'),
  },
  gmt_offset: {
    type: 'string',
    default: '0',
    description: 'UTC offset in hours, e.g. "0", "-5", "5.5".',
    normalize: (v: string) => {
      if (!/^[+-]?\d{1,2}(\.\d+)?$/.test(v)) invalid('gmt_offset', 'must be a number of hours like "0", "-5" or "5.5"')
      const n = Number(v)
      if (n < -12 || n > 14) invalid('gmt_offset', 'must be between -12 and 14')
      return String(n)
    },
  },
  timezone_string: {
    type: 'string',
    default: 'UTC',
    description: 'IANA time zone name, e.g. "Europe/Paris", or "UTC".',
    normalize: (v: string) => canonicalTimezone(v) ?? invalid('timezone_string', `"${v}" is not a valid IANA time zone`),
  },
  page_for_posts: { type: 'integer', default: 0, minimum: 0, description: 'ID of the page that lists posts (0: none).' },
  page_on_front: { type: 'integer', default: 0, minimum: 0, description: 'ID of the static front page (0: none).' },
  show_on_front: {
    type: 'string',
    default: 'posts',
    enum: ['posts', 'page'],
    description: 'What the front page shows.',
  },
  posts_per_page: { type: 'integer', default: 10, minimum: 1, description: 'Posts per archive page.' },
  default_category: { type: 'integer', default: 1, minimum: 0, description: 'Default post category ID.' },
  site_logo: { type: 'integer', default: 0, minimum: 0, description: 'Attachment ID of the site logo (0: none).' },
  site_icon: { type: 'integer', default: 0, minimum: 0, description: 'Attachment ID of the site icon (0: none).' },
  date_format: { type: 'string', default: 'F j, Y', description: 'Date format (PHP date() syntax).' },
  time_format: { type: 'string', default: 'g:i a', description: 'Time format (PHP date() syntax).' },
  default_comment_status: {
    type: 'string',
    default: 'open',
    enum: ['open', 'closed'],
    description: 'Whether new posts allow comments.',
  },
  default_ping_status: {
    type: 'string',
    default: 'open',
    enum: ['open', 'closed'],
    description: 'Whether new posts accept pings.',
  },
  // Discussion (the comments of cms/v2), under the core's option names.
  use_smilies: { type: 'integer', default: 1, enum: [0, 1], description: 'Convert emoticons like :-) and :-P to graphics on display.' },
  require_name_email: { type: 'integer', default: 1, enum: [0, 1], description: 'Comment author must fill out name and email.', showInRest: true },
  comment_moderation: { type: 'integer', default: 0, enum: [0, 1], description: 'Every comment must be manually approved.', showInRest: true },
  comment_previously_approved: { type: 'integer', default: 1, enum: [0, 1], description: 'Comment author must have a previously approved comment.', showInRest: true },
  comment_max_links: { type: 'integer', default: 2, minimum: 0, maximum: 1000, description: 'Hold a comment in the queue if it contains more links than this.', showInRest: true },
  moderation_keys: { type: 'string', default: '', description: 'Comments containing any of these words (one per line) in their content, author name, URL, e-mail, address or browser are held.', showInRest: true },
  disallowed_keys: { type: 'string', default: '', description: 'Comments containing any of these words (one per line) go to the trash.', showInRest: true },
  thread_comments: { type: 'integer', default: 1, enum: [0, 1], description: 'Enable threaded (nested) comments.', showInRest: true },
  thread_comments_depth: { type: 'integer', default: 5, minimum: 2, maximum: 10, description: 'Levels of threaded comments.', showInRest: true },
  close_comments_for_old_posts: { type: 'integer', default: 0, enum: [0, 1], description: 'Close comments on posts older than close_comments_days_old.', showInRest: true },
  close_comments_days_old: { type: 'integer', default: 14, minimum: 0, maximum: 36500, description: 'Days after which comments close (with close_comments_for_old_posts).', showInRest: true },
  comment_flood_seconds: { type: 'integer', default: 15, minimum: 0, maximum: 86400, description: 'Seconds a commenter (an address or a user) waits between two comments (0: no flood control).', showInRest: true },
  show_avatars: { type: 'integer', default: 1, enum: [0, 1], description: 'Show avatars (author_avatar_urls of comments).', showInRest: true },
  blog_public: {
    type: 'integer',
    default: 1,
    enum: [0, 1],
    description: 'Whether search engines may index the site (1) or not (0).',
  },
  admin_email: {
    type: 'string',
    default: '',
    description: 'Address used for admin purposes (empty: none yet).',
    normalize: (v: string) => {
      if (v !== '' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v)) invalid('admin_email', 'must be an e-mail address or empty')
      return v
    },
  },
  start_of_week: { type: 'integer', default: 1, minimum: 0, maximum: 6, description: 'Day the week starts on (0: Sunday).' },
  language: {
    type: 'string',
    default: 'en_US',
    description: 'Site locale code, e.g. "en_US", "de_DE" (empty: en_US).',
    normalize: (v: string) => {
      if (v !== '' && !/^[a-z]{2,3}(_[A-Za-z0-9]{2,12}){0,2}$/.test(v)) invalid('language', 'must be a locale code like "en_US"')
      return v
    },
  },
  default_post_format: {
    type: 'string',
    default: '0',
    enum: ['0', 'aside', 'chat', 'gallery', 'link', 'image', 'quote', 'status', 'video', 'audio'],
    description: 'Format of new posts ("0": standard).',
  },
} as const satisfies Record<string, OptionSpec<string> | OptionSpec<number>>

type Builtins = typeof builtinOptions
export type OptionName = keyof Builtins
/** The value type of each built-in option. */
export type OptionValues = {
  -readonly [K in OptionName]: Builtins[K]['type'] extends 'string' ? string : number;
}

const registry = new Map<string, OptionSpec>(Object.entries(builtinOptions) as [string, OptionSpec][])

/** Names of all known options (built-in and registered), in declaration order. */
export const knownOptions: readonly string[] = [...registry.keys()]

/** Defaults of all known options. */
export const optionDefaults: Readonly<OptionValues> & Readonly<Record<string, OptionValue>> = Object.fromEntries(
  [...registry].map(([k, s]) => [k, s.default])
) as OptionValues

/** The spec of an option, or undefined when unknown. */
export function optionSpec (name: string): Readonly<OptionSpec> | undefined {
  return registry.get(name)
}

/**
 * Adds an option owned by another package (e.g. a settings field of its
 * own). Re-registering a name is an error.
 */
export function registerOption<V extends OptionValue> (name: string, spec: OptionSpec<V>): void {
  if (registry.has(name)) throw new Error(`option "${name}" is already registered`)
  const s = spec as unknown as OptionSpec
  validate(name, s, s.default) // the default must be valid itself
  registry.set(name, s);
  (knownOptions as string[]).push(name);
  (optionDefaults as Record<string, OptionValue>)[name] = s.default
}

function specOf (name: string): OptionSpec {
  const spec = registry.get(name)
  if (!spec) throw new OptionError('unknown_option', `Unknown option "${name}"`, name)
  return spec
}

/**
 * Checks a value against the option's type and returns what gets stored.
 * String options accept strings (finite numbers are turned into strings);
 * integer options accept integers and integer strings ("10").
 */
export function validateOption (name: string, value: unknown): OptionValue {
  return validate(name, specOf(name), value)
}

function validate (name: string, spec: OptionSpec, value: unknown): OptionValue {
  let v: OptionValue
  if (spec.type === 'string') {
    if (typeof value === 'string') v = value
    else if (typeof value === 'number' && Number.isFinite(value)) v = String(value)
    else invalid(name, `expected a string, got ${describe(value)}`)
  } else {
    if (typeof value === 'number' && Number.isSafeInteger(value)) v = value
    else if (typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim())) v = Number(value.trim())
    else invalid(name, `expected an integer, got ${describe(value)}`)
    if (spec.minimum !== undefined && v < spec.minimum) invalid(name, `must be at least ${spec.minimum}`)
    if (spec.maximum !== undefined && v > spec.maximum) invalid(name, `must be at most ${spec.maximum}`)
  }
  if (spec.enum && !spec.enum.includes(v)) {
    invalid(name, `must be one of ${spec.enum.map((e) => JSON.stringify(e)).join(', ')}`)
  }
  return spec.normalize ? (spec.normalize as (x: OptionValue) => OptionValue)(v) : v
}

function describe (value: unknown): string {
  if (value === null) return 'null'
  if (value === undefined) return 'no value'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number') return String(value)
  if (typeof value === 'object') return 'an object'
  return `a ${typeof value}`
}

/** The stored value when it is (still) valid, else the default. */
function storedOrDefault (name: string, spec: OptionSpec, stored: unknown): OptionValue {
  if (stored === undefined) return spec.default
  try {
    return validate(name, spec, stored)
  } catch {
    return spec.default
  }
}

/** Reads one option (its default when unset). Unknown names throw `OptionError`. */
export async function getOption<K extends OptionName> (target: Store | Queryable, name: K): Promise<OptionValues[K]>
export async function getOption (target: Store | Queryable, name: string): Promise<OptionValue>
export async function getOption (target: Store | Queryable, name: string): Promise<OptionValue> {
  const spec = specOf(name)
  const rows = await dbOf(target)
    .select({ value: optionsTable.value })
    .from(optionsTable)
    .where(eq(optionsTable.name, name))
  return storedOrDefault(name, spec, rows[0]?.value)
}

/**
 * Reads several options (all known ones when `names` is omitted), defaults
 * filled in. Unknown names throw `OptionError`.
 */
export async function getOptions (target: Store | Queryable): Promise<OptionValues & Record<string, OptionValue>>
export async function getOptions<K extends OptionName> (
  target: Store | Queryable,
  names: readonly K[],
): Promise<Pick<OptionValues, K>>
export async function getOptions (target: Store | Queryable, names: readonly string[]): Promise<Record<string, OptionValue>>
export async function getOptions (
  target: Store | Queryable,
  names?: readonly string[]
): Promise<Record<string, OptionValue>> {
  const wanted = names ? [...new Set(names)] : [...knownOptions]
  const specs = wanted.map((n) => [n, specOf(n)] as const)
  const stored = new Map<string, unknown>()
  if (wanted.length > 0) {
    // Every request reads settings: one statement text for any list of names, planned once.
    const rows = await executeNamed<{ name: string; value: unknown }>(
      target,
      'options_by_name',
      sql`select name, value from ${optionsTable} where name = any(${sql.param(wanted)}::text[])`
    )
    for (const row of rows) stored.set(row.name, row.value)
  }
  const out: Record<string, OptionValue> = {}
  for (const [n, spec] of specs) out[n] = storedOrDefault(n, spec, stored.get(n))
  return out
}

/**
 * Validates and stores an option; returns the value as stored (coerced /
 * normalised, e.g. a canonical time zone name).
 */
export async function setOption<K extends OptionName> (
  target: Store | Queryable,
  name: K,
  value: unknown,
): Promise<OptionValues[K]>
export async function setOption (target: Store | Queryable, name: string, value: unknown): Promise<OptionValue>
export async function setOption (target: Store | Queryable, name: string, value: unknown): Promise<OptionValue> {
  const v = validateOption(name, value)
  await dbOf(target)
    .insert(optionsTable)
    .values({ name, value: v })
    .onConflictDoUpdate({ target: optionsTable.name, set: { value: sql`excluded.value` } })
  return v
}

/** Removes a stored option so it reads as its default again. */
export async function resetOption (target: Store | Queryable, name: string): Promise<void> {
  specOf(name)
  await dbOf(target).delete(optionsTable).where(eq(optionsTable.name, name))
}
