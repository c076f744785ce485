/**
 * Response schemas several route families share, for `EndpointDecl.response`
 * (documentation: answers are never serialized through them). Objects are
 * left open (TypeBox's default), as the answers may carry more.
 */
import { Type, type TSchema } from '@sinclair/typebox'

const LINKS = Type.Record(Type.String(), Type.Array(Type.Object({ href: Type.String() })), { description: 'Links by relation.' })

/** One route of the discovery index. */
export const ROUTE_ENTRY = Type.Object({
  namespace: Type.String(),
  methods: Type.Array(Type.String()),
  endpoints: Type.Array(Type.Object({
    methods: Type.Array(Type.String()),
    // An empty list when the endpoint takes no arguments, as the core's index shows it.
    args: Type.Union([Type.Record(Type.String(), Type.Object({})), Type.Array(Type.Unknown(), { maxItems: 0 })]),
    allow_batch: Type.Optional(Type.Object({ v1: Type.Boolean() }))
  })),
  _links: Type.Optional(LINKS)
})

/** The discovery index: route pattern -> entry. */
export const ROUTE_INDEX = Type.Record(Type.String(), ROUTE_ENTRY, { description: 'The routes, keyed by pattern.' })

/** What a namespace's root route answers. */
export const NAMESPACE_DESCRIPTION = Type.Object({
  namespace: Type.String(),
  routes: ROUTE_INDEX,
  _links: Type.Optional(LINKS)
}, { title: 'namespace description' })

/** `{success: boolean}` and whatever else the route adds. */
export function successObject (props: Record<string, TSchema> = {}, description?: string): TSchema {
  return Type.Object({ success: Type.Boolean(), ...props }, description === undefined ? {} : { description })
}

/** A JSON object of any members (settings, stored documents): documented as open. */
export function anyObject (description: string): TSchema {
  return Type.Object({}, { description, additionalProperties: true })
}

/** Any JSON value (a stored setting's value, an outside service's answer passed on). */
export function anyValue (description: string): TSchema {
  return Type.Unknown({ description })
}

/** The success of a route that never succeeds (it answers an error for every request, as the real product's does). */
export function neverSucceeds (why: string): TSchema {
  return Type.Not(Type.Unknown(), { description: `No success: ${why}` })
}
