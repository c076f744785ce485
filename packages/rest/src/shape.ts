/**
 * Shaping a handler's data, in the core's order: fields of the requested
 * `context`, then `_fields`, compact `_links`, and `_embed`ded responses.
 * Each item is a new object (handlers may hand out cached objects, and
 * `_links` and `_embedded` are set on it); without `_fields` it is made in
 * one pass with its context's plan (context.ts), not filtered then copied.
 */
import { isPlainObject } from './params.js'
import { applyContext, contextPlan, copyInContext } from './context.js'
import { filterFields, parseFields } from './fields.js'
import { compactLinks, type Links } from './links.js'
import { embedLinks, parseEmbed } from './embed.js'
import type { RestRequest, RouteDecl } from './route.js'

export async function shapeBody (body: unknown, decl: RouteDecl, req: RestRequest, query: Record<string, unknown>): Promise<unknown> {
  const context = typeof req.params.context === 'string' ? req.params.context : undefined
  const plan = decl.schema !== undefined && context !== undefined ? contextPlan(decl.schema, context) : undefined
  const fields = query._fields === undefined ? undefined : parseFields(query._fields)
  const embed = parseEmbed(query._embed)
  const mentions = (key: string): boolean => fields?.some((f) => f === key || f.startsWith(`${key}.`)) ?? true
  const withLinks = mentions('_links') || mentions('_embedded')
  const embedding = embed !== undefined && mentions('_embedded')
  // `_fields=_embedded.author.name` filters inside the embedded responses.
  const embeddedFields = fields?.filter((f) => f.startsWith('_embedded.')).map((f) => f.slice('_embedded.'.length))
  // The plan of one item: an array answer's items', else the answer's own.
  const itemPlan = plan === undefined || !Array.isArray(body) ? plan : plan.items ?? plan
  const linksPlan = itemPlan?.nested.get('_links')
  const linksHidden = itemPlan !== undefined && itemPlan.hasProperties && !itemPlan.inert && itemPlan.hidden.has('_links')
  const shapeOne = async (given: unknown): Promise<unknown> => {
    let out: Record<string, unknown>
    let links: Links | undefined
    if (fields === undefined && isPlainObject(given)) {
      out = copyInContext(given, itemPlan, '_links')
      links = linksHidden ? undefined : (linksPlan === undefined ? given._links : applyContext(given._links, linksPlan)) as Links | undefined
    } else {
      const item = itemPlan === undefined ? given : applyContext(given, itemPlan)
      if (!isPlainObject(item)) return item
      links = item._links as Links | undefined
      out = fields === undefined ? copyInContext(item, undefined, '_links') : filterFields(item, fields) as Record<string, unknown>
      if ('_links' in out) delete out._links
    }
    if (links === undefined) return out
    // As the core does: asking for `_embedded` brings the links along.
    if (withLinks) out._links = compactLinks(links)
    if (embedding) {
      const embedded = await embedLinks(links, embed, req)
      if (embedded !== undefined) {
        out._embedded = embeddedFields === undefined || embeddedFields.length === 0
          ? embedded
          : filterFields(embedded, embeddedFields)
      }
    }
    return out
  }
  return Array.isArray(body) ? await Promise.all(body.map(shapeOne)) : await shapeOne(body)
}
