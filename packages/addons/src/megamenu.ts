/**
 * addons-a/v1 megamenu (seo-rollback-assistant-addons.md §4.2; the
 * product's `wprmegamenu`): the panel a menu item opens, lazily loaded. The
 * item (`item_id`, a query parameter the reference does not list; declared unlisted) names
 * a builder template (a builder library document) whose builder data is
 * rendered by @cms/builder; the answer is that HTML as a JSON string.
 *
 * Public, with the checks of the product: no or a malformed `item_id` is a
 * 400; an unpublished item is shown only to whoever may edit menus
 * (`edit_theme_options`); the template is read as the caller (the core's
 * read rule), so a draft, private or protected template is refused to whoever
 * could not read it (401 anonymous, 403 signed in). Where the product
 * answers 403 for an id that is no menu item, this is a 404
 * `menu_item_not_found`, and a 404 `mega_menu_not_found` when the item has no
 * panel or its template is gone.
 */
import { Type } from '@sinclair/typebox'
import { denied, endpoint, handlerChecked, everyone, route, type RelativeRouteDecl, type RestRequest } from '@cms/rest'
import type { PackageApi } from '@cms/core'
import { LIBRARY_TYPE, renderBuilderData } from '@cms/builder'
import { addonsErrors } from './errors.js'
import type { Menus } from './menus.js'

const ANY_STATUS = ['publish', 'future', 'draft', 'pending', 'private']

function itemId (req: RestRequest<any>): number {
  const raw = (req.params as Record<string, unknown>).item_id
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,10}$/.test(raw.trim()) ? Number(raw.trim()) : NaN
  if (!Number.isInteger(n) || n < 1 || n > 2_147_483_647) throw addonsErrors.invalid_item_id({ params: { item_id: 'item_id must be the id of a menu item.' } })
  return n
}

export function megaMenuRoutes (api: PackageApi, menuStore: Menus): RelativeRouteDecl[] {
  return [route({
    path: '/megamenu',
    endpoints: [endpoint({
      methods: ['GET'],
      args: { item_id: handlerChecked('The menu item.') },
      summary: 'The rendered mega-menu panel of a menu item',
      response: Type.String({ description: 'The panel\'s HTML.' }),
      // Public: the item and its template decide (below), as the product's route does.
      permission: everyone.because('§4.2 mega menu: public; the menu item and its template decide (an unknown item is a 404)').probing({ query: { item_id: 999999 } }),
      handler: async (req) => {
        const item = await menuStore.item(itemId(req))
        if (item === undefined) throw addonsErrors.menu_item_not_found()
        if (item.status !== 'publish' && !req.user.can('edit_theme_options')) throw denied(addonsErrors.rest_forbidden(), req.user.id)
        if (item.megaTemplate === null) throw addonsErrors.mega_menu_not_found()
        const template = await api.content.post(item.megaTemplate)
        if (template === undefined || template.post.type !== LIBRARY_TYPE) throw addonsErrors.mega_menu_not_found()
        // The core's read rule for this caller: drafts, private and future templates only to those who may read them.
        const { posts } = await api.content.posts({ type: LIBRARY_TYPE, status: ANY_STATUS, include: [template.post.id], as: req.user, perPage: 1 })
        const { post } = template
        const readable = posts.length === 1 && (post.password === '' || req.user.can('edit_post', { type: post.type, author: post.author, status: post.status }))
        if (!readable) throw denied(addonsErrors.rest_forbidden(), req.user.id)
        return renderBuilderData(template.meta._builder_data)
      }
    })]
  })]
}
