/**
 * `GET /cms/v2/search`: posts of every viewable type (`type=post`) or terms
 * of every taxonomy (`type=term`), found by `search`, as the core answers:
 * `id, title, url, type, subtype` and a `self` link to embed. Posts are
 * searched with the posts list's query (post-query.ts): published posts
 * only, as the core does, within the same readability rule and indexes, so
 * nobody finds another user's draft, private post or protected text.
 */
import { checkPage, ContextArg, Enum, everyone, IntList, pagingParams, Raw, searchParam, restUrl, route, endpoint, RestResponse, unvalidated, validateArgs, type JsonSchema, type Links, type RestRequest, type RelativeRouteDecl, pageHeaders } from '@cms/rest'
import type { ContentServices as Services } from './services.js'
import { contentErrors } from './errors.js'
import { readRule, runListQuery, type ListQuery } from './post-query.js'
import { permalink, siteSettings } from './post-types.js'
import type { PostRow } from './post-store.js'
import { renderedTitle } from './render-cache.js'
import { listTerms } from './term-store.js'
import { type TypeRegistry } from './type-registry.js'

const TYPES = ['post', 'term'] as const
const VE = ['view', 'embed']

/** Post types searched (the viewable ones) and taxonomies, as the registry knows them now. */
function subtypesOf (registry: TypeRegistry): { post: string[], term: string[] } {
  return {
    post: [...registry.postTypes.values()].filter((t) => t.viewable).map((t) => t.slug),
    term: [...registry.taxonomies.keys()]
  }
}

function searchSchema (subtypes: string[]): JsonSchema {
  return {
    $schema: 'http://json-schema.org/draft-04/schema#',
    title: 'search-result',
    type: 'object',
    properties: {
      id: { description: 'Unique identifier for the object.', type: ['integer', 'string'], context: VE, readonly: true },
      title: { description: 'The title for the object.', type: 'string', context: VE, readonly: true },
      url: { description: 'URL to the object.', type: 'string', format: 'uri', context: VE, readonly: true },
      type: { description: 'Object type.', type: 'string', enum: [...TYPES], context: VE, readonly: true },
      subtype: { description: 'Object subtype.', type: 'string', enum: subtypes, context: VE, readonly: true }
    }
  }
}

function subtypeArg (subtypes: string[]): JsonSchema {
  return { description: 'Limit results to items of one or more object subtypes.', type: 'array', items: { enum: [...subtypes, 'any'], type: 'string' }, default: 'any' }
}

interface Found { id: number, title: string, url: string, type: string, subtype: string, _links: Links }

export function searchRoutes (services: Services): RelativeRouteDecl[] {
  const { store } = services
  const registry = services.types
  const known = subtypesOf(registry)

  /** The subtypes asked, of the asked type: `any` is all of them; those of the other type are dropped. */
  const wantedSubtypes = (req: RestRequest, type: 'post' | 'term'): string[] => {
    const now = subtypesOf(registry)
    // Checked here against the registry as it is now (a package may add a type after the routes were built).
    const { subtype } = validateArgs([{ name: 'subtype', schema: subtypeArg([...now.post, ...now.term]), required: false }], { subtype: req.params.subtype })
    const asked = subtype as string[]
    return asked.includes('any') ? now[type] : now[type].filter((s) => asked.includes(s))
  }

  const searchPosts = async (req: RestRequest, subtypes: string[], p: Record<string, unknown>): Promise<{ items: Found[], total: number }> => {
    const search = typeof p.search === 'string' && p.search !== '' ? p.search : undefined
    const q: ListQuery = {
      type: subtypes,
      statuses: ['publish'],
      search,
      searchColumns: [],
      exact: false,
      hideProtected: req.user.id === 0,
      readable: subtypes.map((type) => readRule(req.user, type)),
      searchable: subtypes.map((type) => readRule(req.user, type, 'edit')),
      author: [],
      authorExclude: [],
      include: p.include as number[],
      exclude: p.exclude as number[],
      parent: [],
      parentExclude: [],
      tax: [],
      taxRelation: 'AND',
      orderby: search === undefined ? 'date' : 'relevance',
      order: 'desc',
      perPage: p.per_page as number,
      page: p.page as number
    }
    const { rows, total } = await runListQuery(store, q)
    const { home } = await siteSettings(store, req, services.meta)
    return { items: await Promise.all(rows.map(async (row) => await foundPost(row, home, req.baseUrl))), total }
  }

  const foundPost = async (row: PostRow, home: string, baseUrl: string): Promise<Found> => {
    const type = registry.postTypes.get(row.type)
    const base = type === undefined ? row.type : `${type.restNamespace}/${type.restBase}`
    const supportsTitle = type === undefined || type.supports.title === true
    return {
      id: row.id,
      title: supportsTitle ? await renderedTitle(row.title) : '',
      url: permalink(home, row.type, row.id),
      type: 'post',
      subtype: row.type,
      _links: {
        self: [{ embeddable: true, href: restUrl(baseUrl, `/${base}/${row.id}`) }],
        about: [{ href: restUrl(baseUrl, `/cms/v2/types/${row.type}`) }],
        collection: [{ href: restUrl(baseUrl, '/cms/v2/search') }]
      }
    }
  }

  const searchTerms = async (req: RestRequest, taxonomies: string[], p: Record<string, unknown>): Promise<{ items: Found[], total: number }> => {
    const { rows, total } = await listTerms(store, {
      taxonomy: taxonomies,
      search: typeof p.search === 'string' ? p.search : undefined,
      include: p.include as number[],
      exclude: p.exclude as number[],
      hideEmpty: false,
      orderby: 'name',
      order: 'asc',
      perPage: p.per_page as number,
      page: p.page as number
    })
    const { home } = await siteSettings(store, req, services.meta)
    const items = rows.map((term): Found => {
      const tax = registry.taxonomies.get(term.taxonomy)
      const base = tax === undefined ? term.taxonomy : `${tax.restNamespace}/${tax.restBase}`
      return {
        id: term.id,
        title: term.name,
        url: term.taxonomy === 'category' ? `${home}/?cat=${term.id}` : term.taxonomy === 'post_tag' ? `${home}/?tag=${term.slug}` : `${home}/?${term.taxonomy}=${term.slug}`,
        type: 'term',
        subtype: term.taxonomy,
        _links: {
          self: [{ embeddable: true, href: restUrl(req.baseUrl, `/${base}/${term.id}`) }],
          about: [{ href: restUrl(req.baseUrl, `/cms/v2/taxonomies/${term.taxonomy}`) }],
          collection: [{ href: restUrl(req.baseUrl, '/cms/v2/search') }]
        }
      }
    })
    return { items, total }
  }

  const search = async (req: RestRequest): Promise<RestResponse> => {
    const p = req.params
    const type = p.type === 'term' ? 'term' : 'post'
    const subtypes = wantedSubtypes(req, type)
    const info = { total: 0, perPage: p.per_page as number, page: p.page as number }
    let items: Found[] = []
    if (subtypes.length > 0) {
      const found = type === 'post' ? await searchPosts(req, subtypes, p) : await searchTerms(req, subtypes, p)
      items = found.items
      info.total = found.total
    }
    checkPage(info, contentErrors.rest_search_invalid_page_number)
    return new RestResponse(items, 200, pageHeaders(req, info))
  }

  const all = [...known.post, ...known.term]
  return [route({
    path: '/search',
    schema: searchSchema(all),
    endpoints: [endpoint({
      methods: ['GET'],
      // Limited as expensive (rate limits): a search reads far more than a page of posts.
      rateClass: 'expensive',
      summary: 'Search posts or terms',
      example: {
        request: { search: 'hello', type: 'post', per_page: 5 },
        response: [{
          id: 1,
          title: 'Hello world',
          url: 'https://cms.example.com/?p=1',
          type: 'post',
          subtype: 'post',
          _links: {
            self: [{ embeddable: true, href: 'https://cms.example.com/index.php?rest_route=/cms/v2/posts/1' }],
            collection: [{ href: 'https://cms.example.com/index.php?rest_route=/cms/v2/search' }]
          }
        }]
      },
      args: {
        context: ContextArg(['view', 'embed']),
        ...pagingParams(),
        search: searchParam(),
        type: Enum(TYPES, { description: 'Limit results to items of an object type.', default: 'post' }),
        subtype: unvalidated(Raw(subtypeArg(all))),
        exclude: IntList({ description: 'Ensure result set excludes specific IDs.', default: [] }),
        include: IntList({ description: 'Limit result set to specific IDs.', default: [] })
      },
      permission: everyone.because('search is public (it finds only what the caller may read)').probing({ query: { search: 'probe' } }),
      handler: search
    })]
  })]
}
