/**
 * builder/v1 favorites (builder-family.md §2.4): the editor's favourite
 * widgets of the current user (`edit_posts`), kept in user meta as
 * `{"widgets": [...]}`. `widgets` is the only type of favorites (another is
 * `400 rest_invalid_param`; the real product crashes). POST adds and
 * DELETE removes the widget names in `favorite` (one name, or several
 * separated by commas) with set semantics; names that are not widgets are
 * dropped. Both answer the type's list after the change. `GET /favorites`
 * answers the current user's favorites (the real product has no handler
 * and answers 500); its list parameters are accepted and change nothing.
 */
import { Type } from '@sinclair/typebox'
import { endpoint, invalidParam, pagingParams, route, searchParam, type RelativeRouteDecl } from '@cms/rest'
import { mayEditPosts } from './access.js'
import { isWidget } from './elements.js'
import { USER_KEYS, type UserState } from './user-state.js'

export const FAVORITE_TYPES = ['widgets'] as const
interface Favorites { widgets: string[] }

/** The parameters of a collection the real route index declares (accepted, unused). */
export function indexParams (): Record<string, any> {
  return {
    context: Type.Optional(Type.String({ description: 'Scope under which the request is made; determines fields present in response.' })),
    ...pagingParams(),
    search: searchParam()
  }
}

async function favoritesOf (state: UserState, userId: number): Promise<Favorites> {
  return favoritesIn(await state.get<Favorites>(userId, USER_KEYS.favorites))
}

function favoritesIn (stored: Favorites | undefined): Favorites {
  const widgets = Array.isArray(stored?.widgets) ? stored.widgets.filter((w): w is string => typeof w === 'string') : []
  return { widgets }
}

export function favoritesRoutes (state: UserState): RelativeRouteDecl[] {
  const itemArgs = {
    id: Type.String({ description: 'The type of favorites.' }),
    favorite: Type.String({ description: 'The name to add or remove (several separated by commas).', maxLength: 2000 })
  }
  const change = (add: boolean) => async (req: { user: { id: number }, params: { id: string, favorite: string } }): Promise<string[]> => {
    if (!(FAVORITE_TYPES as readonly string[]).includes(req.params.id)) throw invalidParam('id', `id must be one of: ${FAVORITE_TYPES.join(', ')}.`)
    const names = req.params.favorite.split(',').map((n) => n.trim()).filter(isWidget)
    const favorites = await state.update<Favorites>(req.user.id, USER_KEYS.favorites, (stored) => {
      const set = new Set(favoritesIn(stored).widgets)
      for (const name of names) {
        if (add) set.add(name)
        else set.delete(name)
      }
      return { widgets: [...set] }
    })
    return favorites.widgets
  }
  return [
    route({
      path: '/favorites',
      endpoints: [endpoint({
        methods: ['GET'],
        args: indexParams(),
        summary: "The current user's favorites",
        response: Type.Object({ widgets: Type.Array(Type.String()) }),
        permission: mayEditPosts,
        handler: async (req) => await favoritesOf(state, req.user.id)
      })]
    }),
    route({
      path: '/favorites/{id}',
      vars: { id: '[\\w]+' },
      endpoints: [
        endpoint({ methods: ['POST'], args: itemArgs, summary: 'Add favorites', response: Type.Array(Type.String(), { description: 'The favorite widgets after the change.' }), permission: mayEditPosts.probing({ vars: { id: 'widgets' }, body: { favorite: 'heading' } }), handler: change(true) }),
        endpoint({ methods: ['DELETE'], args: itemArgs, summary: 'Remove favorites', response: Type.Array(Type.String(), { description: 'The favorite widgets after the change.' }), permission: mayEditPosts.probing({ vars: { id: 'widgets' }, body: { favorite: 'heading' } }), handler: change(false) })
      ]
    })
  ]
}
