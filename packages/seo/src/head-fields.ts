/**
 * `seo_head` and `seo_head_json` on cms/v2 posts, pages, categories, tags
 * and users (issue 20 item 5; the real product's headless fields): the head
 * `get_head` gives for the object's URL (the post, the term's archive, the
 * author's archive), its `html` and its `json`, registered through the
 * core's field API. Off unless the option `seo_head_fields` is on (every post and
 * page answer then computes the head), and only while
 * `seo_enable_headless_rest_endpoints` is on, as the real product ties
 * both to its one headless setting.
 *
 * The head depends only on stored data (the post, its author and media,
 * the SEO options), so anonymous answers kept until the next commit stay
 * right. A list reads its posts and authors once (`preloadPostHeads`);
 * both fields of one post share one head per request.
 */
import { Type } from '@sinclair/typebox'
import { readCache, type ContributionApi, type FieldReadContext, type PackageOption } from '@cms/core'
import type { RestRequest } from '@cms/rest'
import { authorObjectHead, postHead, preloadPostHeads, termObjectHead, type HeadService, type SeoHead } from './head.js'

interface Options {
  fields: PackageOption<ReturnType<typeof Type.Boolean>>
  headless: PackageOption<ReturnType<typeof Type.Boolean>>
}

/** Declares the option and the two fields on posts and pages (called from the package's register). */
export function registerHeadFields (api: ContributionApi, head: HeadService): void {
  const options: Options = {
    fields: api.option('seo_head_fields', Type.Boolean(), {
      default: false,
      description: 'Add seo_head (html) and seo_head_json to cms/v2 posts, pages, categories, tags and users (each answer then computes the SEO head of its URL; off by default).'
    }),
    headless: head.enabled
  }
  // Whether the fields are on, read again only when an option changes (the settings epoch): other commits keep it.
  const switches = readCache<boolean>(api.services.store, 'seo:head-fields-on', 1)
  const enabled = async (ctx: FieldReadContext): Promise<boolean> =>
    await switches.getUnder(await ctx.req.epoch('settings'), 'on', async () => await options.fields.get() && await options.headless.get())
  // One head per post per request, whichever of the two fields asks first.
  const headOf = async (req: RestRequest, id: number): Promise<SeoHead | undefined> =>
    await req.memo(`seo:field-head:${id}`, async () => await postHead(head, req, id))
  const headsOf = async (req: RestRequest, objects: ReadonlyArray<Readonly<Record<string, unknown>>>): Promise<Array<SeoHead | undefined>> => {
    const ids = objects.map((o) => o.id as number)
    await req.memo(`seo:field-heads:${ids.join(',')}`, async () => { await preloadPostHeads(head, req, ids) })
    return await Promise.all(ids.map(async (id) => await headOf(req, id)))
  }
  for (const type of ['post', 'page'] as const) {
    api.registerField(type, 'seo_head', {
      schema: { type: ['string', 'null'], description: 'The SEO head of the post\'s URL as HTML (as GET /seo/v1/get_head answers it), while the option seo_head_fields is on.' },
      when: enabled,
      get: async (object, ctx) => (await headOf(ctx.req, object.id as number))?.html ?? null,
      getMany: async (objects, ctx) => (await headsOf(ctx.req, objects)).map((h) => h?.html ?? null)
    })
    api.registerField(type, 'seo_head_json', {
      schema: { type: ['object', 'null'], description: 'The SEO head of the post\'s URL as data (the json of GET /seo/v1/get_head), while the option seo_head_fields is on.' },
      when: enabled,
      get: async (object, ctx) => (await headOf(ctx.req, object.id as number))?.json ?? null,
      getMany: async (objects, ctx) => (await headsOf(ctx.req, objects)).map((h) => h?.json ?? null)
    })
  }
  // Categories and tags: their archive's head, from the term as answered (nothing more is read).
  for (const taxonomy of ['category', 'post_tag'] as const) {
    api.registerField(taxonomy, 'seo_head', {
      schema: { type: ['string', 'null'], description: 'The SEO head of the term\'s archive as HTML, while the option seo_head_fields is on.' },
      when: enabled,
      get: async (object, ctx) => (await termObjectHead(head, ctx.req, object)).html
    })
    api.registerField(taxonomy, 'seo_head_json', {
      schema: { type: ['object', 'null'], description: 'The SEO head of the term\'s archive as data, while the option seo_head_fields is on.' },
      when: enabled,
      get: async (object, ctx) => (await termObjectHead(head, ctx.req, object)).json
    })
  }
  // Users: their author archive's head; null while they have no published content (the archive is not found).
  api.registerField('user', 'seo_head', {
    schema: { type: ['string', 'null'], description: 'The SEO head of the user\'s author archive as HTML, while the option seo_head_fields is on.' },
    when: enabled,
    get: async (object, ctx) => (await authorObjectHead(head, ctx.req, object.id as number))?.html ?? null
  })
  api.registerField('user', 'seo_head_json', {
    schema: { type: ['object', 'null'], description: 'The SEO head of the user\'s author archive as data, while the option seo_head_fields is on.' },
    when: enabled,
    get: async (object, ctx) => (await authorObjectHead(head, ctx.req, object.id as number))?.json ?? null
  })
}
