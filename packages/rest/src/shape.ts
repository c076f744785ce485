/**
 * Shaping a handler's data, in the core's order: fields of the requested
 * `context`, then `_fields`, compact `_links`, and `_embed`ded responses.
 */
import { isPlainObject } from './params.js'
import { filterByContext } from './context.js'
import { filterFields, parseFields } from './fields.js'
import { compactLinks, type Links } from './links.js'
import { embedLinks, parseEmbed } from './embed.js'
import type { RestRequest, RouteDecl } from './route.js'

export async function shapeBody (body: unknown, decl: RouteDecl, req: RestRequest, query: Record<string, unknown>): Promise<unknown> {
  const context = typeof req.params.context === 'string' ? req.params.context : undefined
  if (decl.schema !== undefined && context !== undefined) body = filterByContext(body, decl.schema, context)
  const fields = query._fields === undefined ? undefined : parseFields(query._fields)
  const embed = parseEmbed(query._embed)
  const mentions = (key: string): boolean => fields?.some((f) => f === key || f.startsWith(`${key}.`)) ?? true
  // `_fields=_embedded.author.name` filters inside the embedded responses.
  const embeddedFields = fields?.filter((f) => f.startsWith('_embedded.')).map((f) => f.slice('_embedded.'.length))
  const shapeOne = async (item: unknown): Promise<unknown> => {
    if (!isPlainObject(item)) return item
    const links = item._links as Links | undefined
    // A copy: handlers may hand out cached objects.
    const out = (fields === undefined ? { ...item } : filterFields(item, fields)) as Record<string, unknown>
    delete out._links
    if (links === undefined) return out
    // As the core does: asking for `_embedded` brings the links along.
    if (mentions('_links') || mentions('_embedded')) out._links = compactLinks(links)
    if (embed !== undefined && mentions('_embedded')) {
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
