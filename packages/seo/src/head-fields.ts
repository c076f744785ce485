/**
 * `seo_head` and `seo_head_json` on cms/v2 posts and pages (issue 20 item
 * 5; the real product's headless fields): the head `get_head` gives for the
 * post's URL, its `html` and its `json`, registered through the core's
 * field API. Off unless the option `seo_head_fields` is on (every post and
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
import { readCache, type FieldReadContext, type PackageApi, type PackageOption } from '@cms/core'
import type { RestRequest } from '@cms/rest'
import { postHead, preloadPostHeads, type SeoHead } from './head.js'

interface Options {
  fields: PackageOption<ReturnType<typeof Type.Boolean>>
  headless: PackageOption<ReturnType<typeof Type.Boolean>>
}

/** Declares the option and the two fields on posts and pages (called from the package's register). */
export function registerHeadFields (api: PackageApi, headless: Options['headless']): void {
  const options: Options = {
    fields: api.option('seo_head_fields', Type.Boolean(), {
      default: false,
      description: 'Add seo_head (html) and seo_head_json to cms/v2 posts and pages (each answer then computes the SEO head of the post; off by default).'
    }),
    headless
  }
  // Whether the fields are on, read once per commit horizon (a setting changes with a commit).
  const switches = readCache<boolean>(api.services.store, 'seo:head-fields-on', 1)
  const enabled = async (ctx: FieldReadContext): Promise<boolean> =>
    await switches.get(ctx.req, 'on', async () => await options.fields.get() && await options.headless.get())
  // One head per post per request, whichever of the two fields asks first.
  const headOf = async (req: RestRequest, id: number): Promise<SeoHead | undefined> =>
    await req.memo(`seo:field-head:${id}`, async () => await postHead(api, req, id))
  const headsOf = async (req: RestRequest, objects: ReadonlyArray<Readonly<Record<string, unknown>>>): Promise<Array<SeoHead | undefined>> => {
    const ids = objects.map((o) => o.id as number)
    await req.memo(`seo:field-heads:${ids.join(',')}`, async () => { await preloadPostHeads(api, req, ids) })
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
}
