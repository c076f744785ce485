/**
 * addons-b/v1 widget-builder (seo-rollback-assistant-addons.md §4.3): custom
 * widgets, each a definition (controls, HTML, CSS, JavaScript) kept as data
 * and never run by the service. All four routes need `manage_options`.
 *
 *   POST   save, save/{id}  the body is the definition (widget-definition.ts,
 *                           undeclared as in the reference); `{id}` of a
 *                           widget saves a new version of it, an unknown one
 *                           makes a new widget (as the product does);
 *                           `{"success": true, "message", "post_id", "version"}`
 *   GET    load/{id}        the latest version (`?version=N`: that one) as
 *                           `{"success": true, "data": {...}, "versions": [...]}`,
 *                           the versions newest first (at most 100 listed)
 *   DELETE delete/{id}      the widget and every version
 *
 * Each save keeps the previous versions. Where the product answers a 200
 * `{"success": false}` or a 500, these are 400 `invalid_data`, 404
 * `widget_not_found` and the like (CONVENTIONS.md §3). The generated files
 * of the product (PHP, CSS, JS under uploads) are not made: the service
 * runs none of it.
 */
import { and, desc, eq, sql } from 'drizzle-orm'
import { Type } from '@sinclair/typebox'
import { can, endpoint, handlerChecked, route, type RelativeRouteDecl, type RestRequest } from '@cms/rest'
import type { PackageApi } from '@cms/core'
import { filterStrings } from '@cms/builder'
import { addonsErrors } from './errors.js'
import { addonsWidgets, addonsWidgetVersions } from './schema.js'
import { parseDefinition, type WidgetData } from './widget-definition.js'

/** Versions a load lists (the newest). */
export const VERSIONS_LISTED = 100
const MAX_ID = 2_147_483_647

/** §4.3 widget builder: manage_options. */
const mayManageOptions = can('manage_options', { error: addonsErrors.rest_forbidden, why: '§4.3 widget builder: manage_options' })
/** What a probe saves. */
const WIDGET = { title: 'Probe', markup: '<div>{{title}}</div>', tabs: { content: [{ key: 'main', label: 'Main', controls: [{ key: 'title', label: 'Title', type: 'text', default: 'Hi' }] }] } }

/** A path id as a row id, or undefined past what the column holds. */
function rowId (raw: unknown): number | undefined {
  const n = Number(raw)
  return Number.isSafeInteger(n) && n > 0 && n <= MAX_ID ? n : undefined
}

/**
 * A writer without `unfiltered_html`: text through the core's post filter,
 * and no CSS or JavaScript at all (no filter makes code safe to publish).
 */
async function filtered (data: WidgetData): Promise<WidgetData> {
  if (data.css !== '' || data.js !== '') throw addonsErrors.widget_code_not_allowed()
  const r = await filterStrings(data)
  if ('invalid' in r) throw addonsErrors.invalid_data()
  return r.value as WidgetData
}

const SAVED = Type.Object({ success: Type.Boolean(), message: Type.String(), post_id: Type.Integer(), version: Type.Integer() })
export function widgetBuilderRoutes (api: PackageApi): RelativeRouteDecl[] {
  const { store } = api.services

  async function save (req: RestRequest<any>, id: number | undefined): Promise<unknown> {
    const now = new Date()
    let data = parseDefinition(req.sentBody, id ?? 0, now)
    if (!req.user.can('unfiltered_html')) data = await filtered(data)
    // One transaction: the widget row (locked while its version is counted up) and the new version.
    const saved = await store.transaction(async (tx) => {
      if (id !== undefined) {
        const [row] = await tx.update(addonsWidgets)
          .set({ title: data.title, version: sql`${addonsWidgets.version} + 1`, modified: now })
          .where(eq(addonsWidgets.id, id))
          .returning({ id: addonsWidgets.id, version: addonsWidgets.version })
        if (row !== undefined) {
          await tx.insert(addonsWidgetVersions).values({ widgetId: row.id, version: row.version, data, savedBy: req.user.id, saved: now })
          return row
        }
      }
      const [row] = await tx.insert(addonsWidgets)
        .values({ title: data.title, author: req.user.id, version: 1, created: now, modified: now })
        .returning({ id: addonsWidgets.id, version: addonsWidgets.version })
      await tx.insert(addonsWidgetVersions).values({ widgetId: row!.id, version: 1, data: { ...data, push_id: row!.id }, savedBy: req.user.id, saved: now })
      return row!
    })
    return { success: true, message: 'Widget saved successfully!', post_id: saved.id, version: saved.version }
  }

  const saveNew = route({
    path: '/widget-builder/save',
    endpoints: [endpoint({
      methods: ['POST'],
      args: {},
      summary: 'Save a new custom widget',
      response: SAVED,
      permission: mayManageOptions.probing({ body: WIDGET }),
      handler: async (req) => await save(req, undefined)
    })]
  })

  const saveExisting = route({
    path: '/widget-builder/save/{id}',
    vars: { id: '[\\d]+' },
    endpoints: [endpoint({
      methods: ['POST'],
      args: {},
      summary: 'Save a new version of a custom widget (a new widget when the id names none)',
      response: SAVED,
      permission: mayManageOptions.probing({ vars: { id: '1' }, body: WIDGET }),
      handler: async (req) => await save(req, rowId(req.params.id))
    })]
  })

  const load = route({
    path: '/widget-builder/load/{id}',
    vars: { id: '[\\d]+' },
    endpoints: [endpoint({
      methods: ['GET'],
      args: { version: handlerChecked('The version to load (default the latest).') },
      summary: 'A custom widget\'s latest definition (or the version asked for) and its versions',
      response: Type.Object({ success: Type.Boolean(), data: Type.Object({ version: Type.Integer() }, { additionalProperties: true, description: 'The widget\'s definition and its version.' }), versions: Type.Array(Type.Object({ version: Type.Integer(), saved: Type.String(), saved_by: Type.Integer() })) }),
      permission: mayManageOptions.probing({ vars: { id: '1' } }),
      handler: async (req) => {
        const id = rowId(req.params.id)
        const [widget] = id === undefined ? [] : await store.db.select().from(addonsWidgets).where(eq(addonsWidgets.id, id))
        if (widget === undefined) throw addonsErrors.widget_not_found()
        const asked = req.params.version
        let version = widget.version
        if (asked !== undefined) {
          const n = typeof asked === 'number' || typeof asked === 'string' ? Number(asked) : NaN
          if (!Number.isSafeInteger(n) || n < 1 || n > widget.version) throw addonsErrors.widget_version_not_found()
          version = n
        }
        const [row] = await store.db.select({ data: addonsWidgetVersions.data }).from(addonsWidgetVersions)
          .where(and(eq(addonsWidgetVersions.widgetId, widget.id), eq(addonsWidgetVersions.version, version)))
        if (row === undefined) throw addonsErrors.widget_version_not_found()
        const versions = await store.db.select({ version: addonsWidgetVersions.version, saved: addonsWidgetVersions.saved, savedBy: addonsWidgetVersions.savedBy })
          .from(addonsWidgetVersions).where(eq(addonsWidgetVersions.widgetId, widget.id))
          .orderBy(desc(addonsWidgetVersions.version)).limit(VERSIONS_LISTED)
        return {
          success: true,
          data: { ...(row.data as WidgetData), version },
          versions: versions.map((v) => ({ version: v.version, saved: v.saved.toISOString().slice(0, 19), saved_by: v.savedBy }))
        }
      }
    })]
  })

  const remove = route({
    path: '/widget-builder/delete/{id}',
    vars: { id: '[\\d]+' },
    endpoints: [endpoint({
      methods: ['DELETE'],
      args: {},
      summary: 'Delete a custom widget and every version of it',
      response: Type.Object({ success: Type.Boolean(), message: Type.String() }),
      permission: mayManageOptions.probing({ vars: { id: '999999' } }),
      handler: async (req) => {
        const id = rowId(req.params.id)
        // The versions go with it (foreign key, on delete cascade).
        const gone = id === undefined ? [] : await store.db.delete(addonsWidgets).where(eq(addonsWidgets.id, id)).returning({ id: addonsWidgets.id })
        if (gone.length === 0) throw addonsErrors.widget_not_found()
        return { success: true, message: 'Widget deleted successfully!' }
      }
    })]
  })

  return [saveNew, saveExisting, load, remove]
}
