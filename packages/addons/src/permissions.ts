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
/** `manage_options`: administrators only. */
const MANAGE_OPTIONS: Outcomes = { anonymous: 401, subscriber: 403, contributor: 403, author: 403, editor: 403, administrator: A }

const c = (why: string, outcomes: Outcomes, probe?: PermissionCase['probe']): PermissionCase => ({ why, ...outcomes, ...(probe === undefined ? {} : { probe }) })

const W = '/addons-b/v1/widget-builder'
const WIDGET = { title: 'Probe', markup: '<div>{{title}}</div>', tabs: { content: [{ key: 'main', label: 'Main', controls: [{ key: 'title', label: 'Title', type: 'text', default: 'Hi' }] }] } }

export const addonsPermissionCases: PermissionCases = {
  [`POST ${W}/save`]: c('§4.3 widget builder: manage_options', MANAGE_OPTIONS, { body: WIDGET }),
  [`POST ${W}/save/{id}`]: c('§4.3 widget builder: manage_options', MANAGE_OPTIONS, { vars: { id: '1' }, body: WIDGET }),
  [`GET ${W}/load/{id}`]: c('§4.3 widget builder: manage_options', MANAGE_OPTIONS, { vars: { id: '1' } }),
  [`DELETE ${W}/delete/{id}`]: c('§4.3 widget builder: manage_options', MANAGE_OPTIONS, { vars: { id: '999999' } })
}
