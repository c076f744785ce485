/**
 * Who may call the add-on routes: expected outcomes for anonymous and each
 * role, written from seo-rollback-assistant-addons.md §4 and CONVENTIONS.md
 * §4 (not from the code). The gateway's permission matrix probes every
 * served route against these. 'allowed' means the permission check passed
 * (a 4xx of the probe itself is fine).
 */
import type { PermissionCase, PermissionCases } from '@cms/core'

const A = 'allowed' as const
type Outcomes = Omit<PermissionCase, 'why' | 'probe'>
/** `edit_posts`: contributors and up. */
const EDIT_POSTS: Outcomes = { anonymous: 401, subscriber: 403, contributor: A, author: A, editor: A, administrator: A }
/** Public: the item and its template decide. */
const EVERYONE: Outcomes = { anonymous: A, subscriber: A, contributor: A, author: A, editor: A, administrator: A }
/** `manage_options`: administrators only. */
const MANAGE_OPTIONS: Outcomes = { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: 403, administrator: A }

const c = (why: string, outcomes: Outcomes, probe?: PermissionCase['probe']): PermissionCase => ({ why, ...outcomes, ...(probe === undefined ? {} : { probe }) })

const W = '/addons-b/v1/widget-builder'
const WIDGET = { title: 'Probe', markup: '<div>{{title}}</div>', tabs: { content: [{ key: 'main', label: 'Main', controls: [{ key: 'title', label: 'Title', type: 'text', default: 'Hi' }] }] } }

export const addonsPermissionCases: PermissionCases = {
  'GET /addons-a/v1/ajaxselect2/{action}': [
    c('§4.1 select-box lookups: edit_posts (the product answers null without it)', EDIT_POSTS, { vars: { action: 'get_posts_by_post_type' }, query: { query_slug: 'post', s: 'probe' } }),
    c('§4.1 user lookup: edit_posts (e-mail addresses only with list_users)', EDIT_POSTS, { vars: { action: 'get_users' }, query: { s: 'probe' } })
  ],
  'GET /addons-a/v1/megamenu': c('§4.2 mega menu: public; the menu item and its template decide (an unknown item is a 404)', EVERYONE, { query: { item_id: '999999' } }),
  [`POST ${W}/save`]: c('§4.3 widget builder: manage_options', MANAGE_OPTIONS, { body: WIDGET }),
  [`POST ${W}/save/{id}`]: c('§4.3 widget builder: manage_options', MANAGE_OPTIONS, { vars: { id: '1' }, body: WIDGET }),
  [`GET ${W}/load/{id}`]: c('§4.3 widget builder: manage_options', MANAGE_OPTIONS, { vars: { id: '1' } }),
  [`DELETE ${W}/delete/{id}`]: c('§4.3 widget builder: manage_options', MANAGE_OPTIONS, { vars: { id: '999999' } })
}
