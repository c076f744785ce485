/**
 * Registered fields (the core CMS's `register_rest_field`): a package adds a
 * top-level field to the cms/v2 answers of posts, pages, users, categories
 * or tags (`post_tag`) through
 * `api.registerField`. The field is part of the type's item schema (so
 * validation, context filtering, OPTIONS, the index and OpenAPI know it),
 * is computed only in the contexts it declares and only when `_fields`
 * asks for it, and is writable through create and update when it has
 * `update` (read-only otherwise: a sent value is ignored, as for the
 * core's `readonly` properties).
 *
 * A type without registered fields does no added work: the routes ask
 * `has(type)` once per answer.
 */
import { CONTRIBUTED_BY, parseFields, wantsField, type JsonSchema, type RestRequest } from '@cms/rest'
import type { Tx } from '@cms/store'

/** The object types whose cms/v2 routes render registered fields (terms by their taxonomy's name, as the core CMS names them). */
export type FieldObjectType = 'post' | 'page' | 'user' | 'category' | 'post_tag'
export const FIELD_OBJECT_TYPES: readonly FieldObjectType[] = ['post', 'page', 'user', 'category', 'post_tag']
/** Types whose fields are read-only: their writes are not one transaction a field's update could join. */
const READ_ONLY_TYPES: readonly FieldObjectType[] = ['user', 'category', 'post_tag']

/** What a field's `get` / `getMany` is told about the answer being rendered. */
export interface FieldReadContext {
  /** The request being answered (its caller in `req.user`, its URL in `req.path` and `req.query`). */
  req: RestRequest
  /** The context the answer is rendered in (`view`, `edit`, `embed`). */
  context: string
  /** `post`, `page`, `user`, `category` or `post_tag`. */
  objectType: FieldObjectType
}

/** What a field's `update` is told about the write. */
export interface FieldWriteContext {
  req: RestRequest
  /**
   * The write's transaction: the post row and its meta are written and not
   * yet committed. Write the field's own rows through it so the whole
   * request commits or fails as one; a throw (a `RestError` for the
   * caller's mistakes) rolls everything back.
   */
  tx: Tx
  objectType: FieldObjectType
}

/**
 * A field a package adds to an object type's answers.
 *
 * The value answered must depend only on the request's URL, its caller's
 * rights and stored data (the store's tables, options, meta), never on the
 * clock, a process's memory or an outside service: anonymous GETs of
 * `cache: 'public'` routes are kept by URL until the next commit (the
 * store's horizon), and the read's ETag hashes the fields' values. A value
 * computed from stored data is fresh after any write; one that is not
 * would be served stale.
 */
export interface FieldDefinition<T = unknown> {
  /**
   * The field's JSON schema as the item schema shows it (`type`,
   * `description`, `enum`, `properties`...). `context` defaults to view and
   * edit (add `embed` to show it in embedded answers); `readonly` is set by
   * the core: true unless the field has `update`. A writable field's value
   * is validated against this schema with the request's other parameters,
   * before anything is written (`400 rest_invalid_param`).
   */
  schema: JsonSchema
  /**
   * Whether the field is in this answer at all (a site option that turns
   * it on), asked once per answer before any `get`; false leaves the field
   * out of the answer (it stays in the schema). Default: always.
   */
  when?: (ctx: FieldReadContext) => boolean | Promise<boolean>
  /**
   * The value for one object. `object` is the answer as the route renders
   * it (every core field, before the context and `_fields` filter it; do
   * not modify it). May be async. A value read from the database, the
   * object and the caller: a list's answer is reused for the same caller and
   * arguments while nothing is committed (as whole answers are kept).
   */
  get: (object: Readonly<Record<string, unknown>>, ctx: FieldReadContext) => T | Promise<T>
  /**
   * The values for a page of objects (lists), one per object in the same
   * order: one query for the page rather than one per object. Without it
   * a list calls `get` for each object (concurrently).
   */
  getMany?: (objects: ReadonlyArray<Readonly<Record<string, unknown>>>, ctx: FieldReadContext) => Promise<readonly T[]>
  /**
   * Makes the field writable: called on create and update when the request
   * carries the field (already validated against `schema`), inside the
   * write's transaction, after the object's own row is written. Text a
   * caller without `unfiltered_html` sends is the field's to filter
   * (`filterPostHtml`), as the core filters its own fields.
   */
  update?: (value: T, object: { id: number, type: string }, ctx: FieldWriteContext) => Promise<void>
}

interface RegisteredField extends FieldDefinition {
  name: string
  owner: string
  context: readonly string[]
}

const DEFAULT_CONTEXT = ['view', 'edit']

/** The fields packages registered, per object type, in registration order. */
export class FieldRegistry {
  private readonly byType = new Map<FieldObjectType, RegisteredField[]>()
  private sealed = false
  /** The views of {@link visible}, by the off set (the activation keeps one set per state). */
  private readonly views = new WeakMap<ReadonlySet<string>, FieldRegistry>()

  register (objectType: FieldObjectType, name: string, def: FieldDefinition<any>, owner = 'unknown'): void {
    if (!FIELD_OBJECT_TYPES.includes(objectType)) throw new TypeError(`fields cannot be registered on ${String(objectType)} objects (only ${FIELD_OBJECT_TYPES.join(', ')})`)
    if (this.sealed) throw new Error(`field ${name} registered after the routes were built`)
    if (!/^[a-z][a-z0-9_]{0,63}$/.test(name)) throw new TypeError(`field name ${JSON.stringify(name)} is not a plain lower-case name`)
    if (typeof def.get !== 'function') throw new TypeError(`field ${name} has no get function`)
    if (READ_ONLY_TYPES.includes(objectType) && def.update !== undefined) throw new TypeError(`field ${name}: fields of ${objectType} objects are read-only (no update)`)
    const list = this.byType.get(objectType) ?? []
    const known = list.find((f) => f.name === name)
    if (known !== undefined) throw new Error(`field ${name} of ${objectType} is registered twice (by ${known.owner} and ${owner})`)
    const context = Array.isArray(def.schema.context) ? def.schema.context as string[] : DEFAULT_CONTEXT
    list.push({ ...def, name, owner, context })
    this.byType.set(objectType, list)
  }

  /** Ends registration (the item schemas are built from the fields once). */
  seal (): void { this.sealed = true }

  /**
   * The fields shown while the packages `off` names are switched off (a
   * deactivated plugin's: `req.registry.off(req)`): this registry when none
   * is theirs, else a sealed view without them, made once per set.
   */
  visible (off: ReadonlySet<string>): FieldRegistry {
    if (off.size === 0) return this
    let view = this.views.get(off)
    if (view === undefined) {
      const all = [...this.byType.values()].flat()
      view = all.every((f) => !off.has(f.owner)) ? this : new FieldRegistry()
      if (view !== this) {
        for (const [type, fields] of this.byType) {
          const kept = fields.filter((f) => !off.has(f.owner))
          if (kept.length > 0) view.byType.set(type, kept)
        }
        view.sealed = true
      }
      this.views.set(off, view)
    }
    return view
  }

  /** Whether the type has registered fields (the hot path's only question when it has none). */
  has (objectType: string): boolean { return this.byType.has(objectType as FieldObjectType) }

  /** The type's fields. */
  of (objectType: string): readonly RegisteredField[] { return this.byType.get(objectType as FieldObjectType) ?? [] }

  /**
   * Item-schema properties of the type's fields; a name the core's schema
   * already has is an error (a package cannot replace a core field).
   */
  schemaProperties (objectType: string, core: Readonly<Record<string, unknown>>): Record<string, JsonSchema> {
    const out: Record<string, JsonSchema> = {}
    for (const f of this.of(objectType)) {
      if (f.name in core) throw new Error(`field ${f.name} registered by ${f.owner} on ${objectType} has the name of a core field`)
      // The field leaves the schemas the kernel shows while its package is off (discovery.ts).
      out[f.name] = { ...f.schema, context: [...f.context], readonly: f.update === undefined, [CONTRIBUTED_BY]: f.owner }
    }
    return out
  }

  /**
   * Adds the type's fields to rendered objects (in place), each computed
   * only when the context shows it and `_fields` asks for it; a list uses
   * `getMany` where the field has one. Answers the names added.
   */
  async render (objectType: FieldObjectType, objects: Array<Record<string, unknown>>, req: RestRequest, context: string): Promise<string[]> {
    const wanted = req.query._fields === undefined ? undefined : parseFields(req.query._fields)
    let fields = this.of(objectType).filter((f) => f.context.includes(context) && wantsField(wanted, f.name))
    if (fields.length === 0 || objects.length === 0) return []
    const ctx: FieldReadContext = { req, context, objectType }
    const shown = await Promise.all(fields.map(async (f) => f.when === undefined || await f.when(ctx)))
    fields = fields.filter((_, i) => shown[i])
    const columns = await Promise.all(fields.map(async (f) => {
      if (objects.length > 1 && f.getMany !== undefined) {
        const values = await f.getMany(objects, ctx)
        if (values.length !== objects.length) throw new Error(`field ${f.name}: getMany answered ${values.length} values for ${objects.length} objects`)
        return values
      }
      return await Promise.all(objects.map(async (o) => await f.get(o, ctx)))
    }))
    fields.forEach((f, i) => {
      const values = columns[i]!
      objects.forEach((o, j) => { o[f.name] = values[j] ?? null })
    })
    return fields.map((f) => f.name)
  }

  /** The writable fields a request carries, with their (validated) values. */
  writes (objectType: string, params: Readonly<Record<string, unknown>>): Array<{ field: RegisteredField, value: unknown }> {
    return this.of(objectType)
      .filter((f) => f.update !== undefined && params[f.name] !== undefined)
      .map((field) => ({ field, value: params[field.name] }))
  }
}
