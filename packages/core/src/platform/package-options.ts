/**
 * Site options packages own: each declared once by its package with a
 * TypeBox schema and a default (`api.option(...)`), stored in the site's
 * `options` table under its name, and read and written through the handle
 * the declaration returns (or `cms option get/set`, which checks the same
 * schema). Nothing is set on a module: the registry is the deployment's
 * (`services.options`), so a package learns another's option only through
 * the API, never by importing it. A stored value the schema no longer
 * accepts reads as the default.
 */
import { eq, inArray, sql } from 'drizzle-orm'
import type { Static, TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { RestError } from '@cms/rest'
import { dbOf, optionSpec, schema as storeSchema, type Queryable, type Store } from '@cms/store'

export interface PackageOptionSpec {
  name: string
  /** The package that declared it. */
  owner: string
  schema: TSchema
  default: unknown
  description: string
}

/** A package's handle on one of its options. */
export interface PackageOption<S extends TSchema> {
  readonly name: string
  /** The stored value, or the default when unset (or no longer valid). */
  get: (db?: Store | Queryable) => Promise<Static<S>>
  /** Checks `value` against the schema (`400 rest_invalid_param` naming the option), stores it and answers it. */
  set: (value: unknown, db?: Store | Queryable) => Promise<Static<S>>
  /** Removes the stored value: the option reads as its default again. */
  reset: (db?: Store | Queryable) => Promise<void>
}

const NAME = /^[a-z][a-z0-9_]{0,99}$/

/** The first reason `value` does not fit `spec`, or null when it does. */
function problem (spec: PackageOptionSpec, value: unknown): string | null {
  const first = Value.Errors(spec.schema, value).First()
  if (first === undefined) return null
  return `${first.path === '' ? '' : `${first.path}: `}${first.message}`
}

/** The options packages declared in this deployment. */
export class PackageOptions {
  private readonly specs = new Map<string, PackageOptionSpec>()

  constructor (private readonly store: () => Store) {}

  /** Declares an option; its name must be free (the core's options included) and its default valid. */
  declare (owner: string, name: string, schema: TSchema, def: unknown, description = ''): PackageOptionSpec {
    if (!NAME.test(name)) throw new Error(`${owner}: option names are lowercase letters, digits and _ (got "${name}")`)
    const known = this.specs.get(name)
    if (known !== undefined) throw new Error(`option ${name} is declared by ${known.owner} and ${owner}`)
    if (optionSpec(name) !== undefined) throw new Error(`${owner}: option ${name} is the core's`)
    const spec: PackageOptionSpec = { name, owner, schema, default: structuredClone(def), description }
    const why = problem(spec, spec.default)
    if (why !== null) throw new Error(`${owner}: the default of option ${name} does not fit its schema: ${why}`)
    this.specs.set(name, spec)
    return spec
  }

  /** Every declared option, in declaration order. */
  list (): PackageOptionSpec[] { return [...this.specs.values()] }

  spec (name: string): PackageOptionSpec | undefined { return this.specs.get(name) }

  /** Throws `400 rest_invalid_param` unless `value` fits the option's schema (unknown names: `rest_invalid_param` too). */
  check (name: string, value: unknown): unknown {
    const spec = this.specs.get(name)
    const why = spec === undefined ? 'no package declares this option' : problem(spec, value)
    if (why !== null) {
      const message = `Invalid value for option ${name}: ${why}`
      throw new RestError('rest_invalid_param', `Invalid parameter(s): ${name}`, 400, { params: { [name]: message }, details: { [name]: { code: 'rest_invalid_param', message, data: null } } })
    }
    return value
  }

  async read (name: string, db: Store | Queryable = this.store()): Promise<unknown> {
    return (await this.readMany([name], db))[name]
  }

  /** Several options at once (one query), defaults filled in. */
  async readMany (names: readonly string[], db: Store | Queryable = this.store()): Promise<Record<string, unknown>> {
    const specs = names.map((n) => {
      const spec = this.specs.get(n)
      if (spec === undefined) throw new Error(`no package declares option ${n}`)
      return spec
    })
    const out: Record<string, unknown> = {}
    if (specs.length === 0) return out
    const rows = await dbOf(db).select({ name: storeSchema.options.name, value: storeSchema.options.value })
      .from(storeSchema.options).where(inArray(storeSchema.options.name, specs.map((s) => s.name)))
    const stored = new Map(rows.map((r) => [r.name, r.value as unknown]))
    for (const spec of specs) {
      const value = stored.get(spec.name)
      out[spec.name] = value !== undefined && problem(spec, value) === null ? value : structuredClone(spec.default)
    }
    return out
  }

  async write (name: string, value: unknown, db: Store | Queryable = this.store()): Promise<unknown> {
    this.check(name, value)
    await dbOf(db).insert(storeSchema.options).values({ name, value })
      .onConflictDoUpdate({ target: storeSchema.options.name, set: { value: sql`excluded.value` } })
    return value
  }

  async reset (name: string, db: Store | Queryable = this.store()): Promise<void> {
    if (!this.specs.has(name)) throw new Error(`no package declares option ${name}`)
    await dbOf(db).delete(storeSchema.options).where(eq(storeSchema.options.name, name))
  }

  /** @internal The handle `api.option` answers. */
  handle<S extends TSchema> (spec: PackageOptionSpec): PackageOption<S> {
    return {
      name: spec.name,
      get: async (db) => await this.read(spec.name, db) as Static<S>,
      set: async (value, db) => await this.write(spec.name, value, db) as Static<S>,
      reset: async (db) => { await this.reset(spec.name, db) }
    }
  }
}
