/**
 * What a route author writes once and what the kernel derives from it, as
 * the core's REST controllers derive it:
 *
 * - `defineNamespace(name, routes)`: the namespace is named once; each
 *   route's path is relative to it (`/posts/{id}`, or the index's form
 *   `/posts/(?P<id>[\d]+)`). The kernel refuses to start with a route whose
 *   namespace is not the one it is registered under (`assertNamespaced`).
 * - `field({...})`: an item-schema property written as the JSON schema the
 *   index shows (`context`, `readonly`, `required`, `default`), typed from
 *   its own `type`, `enum` and `items`.
 * - `argsFromSchema(schema, 'create' | 'update')`: the write arguments of an
 *   item schema (`get_endpoint_args_for_item_schema`): read-only fields
 *   dropped, `default` and `required` kept on create only.
 * - `contextParam(schema)`: `context` with the contexts the schema uses.
 * - `pagingParams()`, `searchParam()`: the `page`, `per_page` and `search`
 *   of any paged list, as the core words them (one place for their
 *   bounds), for lists that take nothing else of a collection's.
 * - `collectionParams({...})`: `context`, `page`, `per_page`, `search`,
 *   (`exclude`, `include` with `ids: true`), `offset`, `order`, `orderby` of
 *   a list, with per-route overrides.
 * - `invalidParam(name, message, details?)`: a handler's own check of one
 *   argument failed, answered like the kernel's validation.
 *
 * Arguments keep their TypeBox types: a handler's `req.params` is the
 * `Static<>` of its endpoint's arguments, an argument with a default typed
 * as present.
 */
import { Type, type TInteger, type TOptional, type TSchema, type TString, type TUnsafe } from '@sinclair/typebox'
import { contextsOf } from './context.js'
import { ContextArg, Enum, IntList, type JsonSchema } from './schema.js'
import { isSecret, isUnvalidated, secret, unlisted, unvalidated } from './arg-marks.js'
import type { NamespaceDecl, RouteDecl, RouteInput } from './route.js'

// --- namespaces --------------------------------------------------------------

/**
 * A namespace and its routes. A route without `namespace` has a path
 * relative to the namespace; one that names its namespace has an absolute
 * path and must name this one.
 */
export function defineNamespace (name: string, routes: readonly RouteInput[]): NamespaceDecl {
  return {
    name,
    routes: routes.map((decl) => {
      if (decl.namespace === undefined) {
        return { ...decl, namespace: name, path: `/${name}${decl.path === '/' ? '' : decl.path}` }
      }
      assertRouteIn(name, decl as RouteDecl)
      return decl as RouteDecl
    })
  }
}

function assertRouteIn (name: string, decl: RouteDecl): void {
  const prefix = `/${name}`
  if (decl.namespace !== name || !(decl.path === prefix || decl.path.startsWith(`${prefix}/`))) {
    throw new Error(`route ${decl.path} of namespace '${decl.namespace}' is registered under namespace '${name}'`)
  }
}

/** The kernel's check at start: every route of a namespace is declared in it. */
export function assertNamespaced (ns: NamespaceDecl): void {
  for (const decl of ns.routes) assertRouteIn(ns.name, decl)
}

// --- item schemas --------------------------------------------------------------

type ScalarOf<T, S> =
  T extends 'string' ? (S extends { enum: ReadonlyArray<infer E> } ? E : string)
    : T extends 'integer' | 'number' ? number
      : T extends 'boolean' ? boolean
        : T extends 'null' ? null
          : T extends 'array' ? (S extends { items: infer I } ? Array<StaticOf<I>> : unknown[])
            : T extends 'object' ? Record<string, unknown>
              : unknown

/** The TypeScript type a JSON schema describes (its `type`, `enum`, `items`, `oneOf`). */
export type StaticOf<S> =
  S extends { type: infer T }
    ? (T extends ReadonlyArray<infer U> ? ScalarOf<U, S> : ScalarOf<T, S>)
    : S extends { oneOf: ReadonlyArray<infer O> } ? StaticOf<O> : unknown

/**
 * An item-schema property as the index shows it, e.g.
 * `field({ description: 'Unique identifier.', type: 'integer', context: ALL, readonly: true })`.
 * Its flags stay in its type, so `argsFromSchema` knows them.
 */
export function field<const S extends JsonSchema> (schema: S): TUnsafe<StaticOf<S>> & S {
  return Type.Unsafe<StaticOf<S>>(schema) as TUnsafe<StaticOf<S>> & S
}

/** Properties of an item schema, each a TypeBox schema (plain JSON objects are typed `unknown`). */
export type FieldMap = Record<string, TSchema>

/** The item schema of a route family: `{ $schema, title, type: 'object', properties }`. */
export interface ItemSchema<P extends FieldMap = FieldMap> {
  $schema: 'http://json-schema.org/draft-04/schema#'
  title: string
  type: 'object'
  properties: P
}

export function itemSchema<P extends FieldMap> (title: string, properties: P): ItemSchema<P> {
  return { $schema: 'http://json-schema.org/draft-04/schema#', title, type: 'object', properties }
}

type Writable<P> = { [K in keyof P]: P[K] extends { readonly: true } ? never : K }[keyof P]

/** Create: required or defaulted fields are present; the others may be absent. */
export type CreateArgs<P extends FieldMap> = {
  [K in Writable<P>]: P[K] extends { required: true } | { default: unknown } ? P[K] : TOptional<P[K]>
}

/** Update: every writable field may be absent. */
export type UpdateArgs<P extends FieldMap> = { [K in Writable<P>]: TOptional<P[K]> }

// The keywords an argument takes from its schema property (`rest_get_allowed_schema_keywords()`
// without `default` and `required`, which only a create endpoint takes).
const ARG_KEYWORDS = new Set([
  'title', 'description', 'type', 'format', 'enum', 'items', 'properties',
  'additionalProperties', 'patternProperties', 'minProperties', 'maxProperties', 'minimum',
  'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength',
  'pattern', 'minItems', 'maxItems', 'uniqueItems', 'anyOf', 'oneOf'
])

/**
 * The arguments of the endpoint that creates (`'create'`) or updates
 * (`'update'`) an item, from its schema, as `rest_get_endpoint_args_for_schema()`
 * makes them: read-only fields are left out; each argument keeps the
 * property's schema keywords (not `context`); `default` and `required`
 * apply on create only. A field marked `unvalidated` or `secret` stays so.
 */
export function argsFromSchema<P extends FieldMap> (schema: ItemSchema<P>, mode: 'create'): CreateArgs<P>
export function argsFromSchema<P extends FieldMap> (schema: ItemSchema<P>, mode: 'update'): UpdateArgs<P>
export function argsFromSchema (schema: ItemSchema, mode: 'create' | 'update'): Record<string, TSchema> {
  const out: Record<string, TSchema> = {}
  for (const [name, prop] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
    if (prop.readonly === true) continue
    const arg: JsonSchema = {}
    for (const [key, value] of Object.entries(prop)) if (ARG_KEYWORDS.has(key)) arg[key] = value
    const create = mode === 'create'
    if (create && prop.default !== undefined) arg.default = prop.default
    let typed: TSchema = Type.Unsafe(arg)
    if (!(create && (prop.required === true || prop.default !== undefined))) typed = Type.Optional(typed)
    if (isUnvalidated(prop)) typed = unvalidated(typed)
    out[name] = isSecret(prop) ? secret(typed) : typed
  }
  return out
}

/** The `context` argument of a route: the contexts its item schema uses, `view` by default. */
export function contextParam (schema: JsonSchema, def = 'view'): TUnsafe<string> {
  return ContextArg(contextsOf(schema), def)
}

// --- collections -----------------------------------------------------------------

export interface CollectionOptions<V extends string> {
  /** The item schema (for `context`). */
  schema: JsonSchema
  /** `orderby`: its values, default and description. */
  orderby: { enum: readonly V[], default: V, description: string }
  /** `order`'s default: `desc` unless given. */
  order?: 'asc' | 'desc'
  /** `per_page`: `optional: true` for a list that answers everything unless asked (revisions). */
  perPage?: { optional?: boolean }
  /** `ids: true` adds `exclude` and `include` (after `search`, as the core lists them). */
  ids?: boolean
}

// A type literal, not an interface: endpoint arguments need an index signature.
export type CollectionParams<V extends string, O extends CollectionOptions<V>> = {
  context: TUnsafe<string>
  page: TInteger
  per_page: O['perPage'] extends { optional: true } ? TOptional<TInteger> : TInteger
  search: TOptional<TString>
} & (O['ids'] extends true ? { exclude: TUnsafe<number[]>, include: TUnsafe<number[]> } : unknown) & {
  offset: TOptional<TInteger>
  order: TUnsafe<'asc' | 'desc'>
  orderby: TUnsafe<V>
}

export interface PagingOptions {
  /** `per_page` as a list words it otherwise (the SEO bulk editor: 20 a page, "Posts per page."). */
  perPage?: { default?: number, description?: string }
  /** `page`'s description, where the real product words it otherwise. */
  page?: { description?: string }
}

/** `page` and `per_page` of a paged list: 1-based pages of at most 100 items, 10 by default. */
export function pagingParams (opts: PagingOptions = {}): { page: TInteger, per_page: TInteger } {
  return {
    page: Type.Integer({ description: opts.page?.description ?? 'Current page of the collection.', default: 1, minimum: 1 }),
    per_page: Type.Integer({ description: opts.perPage?.description ?? 'Maximum number of items to be returned in result set.', default: opts.perPage?.default ?? 10, minimum: 1, maximum: 100 })
  }
}

/** `search` of a list: text the items must match. */
export function searchParam (): TOptional<TString> {
  return Type.Optional(Type.String({ description: 'Limit results to those matching a string.' }))
}

/**
 * The parameters every list takes, as the core words them. A list that
 * does not take one leaves it out (`const { offset, ...params } = ...`);
 * a list that orders them otherwise picks them by name.
 */
export function collectionParams<const V extends string, const O extends CollectionOptions<V>> (opts: O & CollectionOptions<V>): CollectionParams<V, O> {
  const { page, per_page: perPage } = pagingParams()
  if (opts.perPage?.optional === true) delete (perPage as JsonSchema).default
  return {
    context: contextParam(opts.schema),
    page,
    per_page: (opts.perPage?.optional === true ? Type.Optional(perPage) : perPage) as CollectionParams<V, O>['per_page'],
    search: searchParam(),
    ...(opts.ids === true
      ? {
          exclude: IntList({ description: 'Ensure result set excludes specific IDs.', default: [] }),
          include: IntList({ description: 'Limit result set to specific IDs.', default: [] })
        }
      : {}),
    offset: Type.Optional(Type.Integer({ description: 'Offset the result set by a specific number of items.' })),
    order: Enum(['asc', 'desc'] as const, { description: 'Order sort attribute ascending or descending.', default: opts.order ?? 'desc' }),
    orderby: Enum(opts.orderby.enum, { description: opts.orderby.description, default: opts.orderby.default }) as TUnsafe<V>
  } as CollectionParams<V, O>
}

// --- errors ------------------------------------------------------------------------

export { invalidParam, type ParamIssue } from './errors.js'

/**
 * An argument the real product reads without declaring it, passed on as
 * sent for the handler to check: `unlisted` (not in the index, which shows
 * the reference's arguments) and `unvalidated`. Handlers only see declared
 * arguments, so a route that reads one declares it with this.
 */
export function handlerChecked (description: string): TOptional<TUnsafe<unknown>> {
  return unlisted(unvalidated(Type.Optional(Type.Unsafe<unknown>({ description }))))
}
