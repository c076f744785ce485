/**
 * assistant/v1 snippets (seo-rollback-assistant-addons.md §3.2, §3.3):
 * `snippets` (list, create), `snippets/{id}` (delete), `snippets/{id}/artifact`,
 * `snippets/{id}/files` (list, save into dev), `snippets/{id}/files/{filename}`,
 * `snippets/{id}/publish` (dev to prod) and `snippets/validate`. All need
 * "manage snippets" (`manage_options`). The artifact-addressed routes are
 * artifacts.ts; both share the store (snippet-store.ts) and the file rules
 * (file-rules.ts).
 */
import { Type, type TSchema } from '@sinclair/typebox'
import { endpoint, invalidParam, Raw, route, type RelativeRouteDecl } from '@cms/rest'
import { mayManageSnippets } from './access.js'
import { assistantErrors } from './errors.js'
import { checkContent, readFiles, requireMain } from './file-rules.js'
import { ARTIFACT_ID, DEPLOYMENT_STATUSES, SNIPPET_TYPES, slugOf, sqlDate, type DeploymentStatus, type SnippetRow, type SnippetStore } from './snippet-store.js'

const idArg = { id: Type.Integer({ description: 'Unique identifier for the snippet.' }) }
/** What the permission probes send: files that pass the rules, a snippet that does not exist. */
export const PROBE_FILES = { files: [{ name: 'main.php', content: '<?php echo 1;' }] }
const SNIPPET = { vars: { id: '999999' } }
const filesArg = Raw<unknown[]>({ type: 'array', description: 'Files, each {name, content}: 1 to 100, names main.php or *.php, *.css, *.js.' })

/** A type from a request: one of the allowed slugs, else `400 invalid_type`. */
export function typeOf (value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string' || !(SNIPPET_TYPES as readonly string[]).includes(value)) throw assistantErrors.invalid_type(undefined, `Invalid snippet type; allowed: ${SNIPPET_TYPES.join(', ')}.`)
  return value
}

/** An artifact id from a request body (lowercase hex and hyphens). */
export function artifactOf (value: string): string {
  if (!ARTIFACT_ID.test(value)) throw assistantErrors.invalid_artifact_id()
  return value
}

/**
 * Saves files into a snippet's dev set (§3.3 files update): every static
 * rule on the given files, `main.php` in the merged set, the type, the
 * content checks off the request thread; then one transaction.
 */
/** What the snippet writes answer: a message and the snippet's id, and what the write adds. */
export function snippetAnswer (props: Record<string, TSchema> = {}): TSchema {
  return Type.Object({ success: Type.Boolean(), message: Type.String(), post_id: Type.Integer(), ...props })
}

/** What a publish answers. */
export const PUBLISHED = snippetAnswer({ type: Type.Union([Type.String(), Type.Null()]), files: Type.Integer({ description: 'How many files went to production.' }) })

export async function saveFiles (snippets: SnippetStore, row: SnippetRow, body: { files: unknown, type?: unknown, version?: number }): Promise<number> {
  const files = readFiles(body.files)
  const type = typeOf(body.type)
  requireMain([...await snippets.names(row.id), ...files.map((f) => f.name)])
  await checkContent(files)
  return await snippets.save(row.id, files, { ...(type === undefined ? {} : { type }), ...(body.version === undefined ? {} : { version: body.version }) })
}

/** Publishes the dev set to prod (§3.3 publish). */
export async function publish (snippets: SnippetStore, id: number): Promise<Record<string, unknown>> {
  const { row, files } = await snippets.publish(id)
  return { success: true, message: 'Snippet published to production successfully.', post_id: id, type: row.type, files }
}

export function snippetRoutes (snippets: SnippetStore): RelativeRouteDecl[] {
  return [
    route({
      path: '/snippets',
      endpoints: [
        endpoint({
          methods: ['GET'],
          args: {
            type: Type.Optional(Type.String({ description: 'Only snippets of this type (an unknown type is ignored).' })),
            deployment_status: Type.Optional(Type.String({ description: `Only snippets in these states, a comma list of ${DEPLOYMENT_STATUSES.join(', ')}.` }))
          },
          summary: 'The snippets, sorted by title',
          response: Type.Object({ snippets: Type.Array(Type.Object({ id: Type.Integer(), slug: Type.String(), title: Type.String(), status: Type.String(), types: Type.Array(Type.String()), files: Type.Unknown(), deploymentStatus: Type.String({ description: 'not-deployed, test-only, changes-pending or deployed.' }), artifactId: Type.Union([Type.String(), Type.Null()]), version: Type.Union([Type.Integer(), Type.Null()]), createdAt: Type.String(), isOwnedByCurrentUser: Type.Boolean(), widgetName: Type.Optional(Type.String()) })), total: Type.Integer() }),
          permission: mayManageSnippets,
          handler: async (req) => {
            const { type, deployment_status: wanted } = req.params
            let statuses: DeploymentStatus[] | undefined
            if (wanted !== undefined && wanted.trim() !== '') {
              const given = wanted.split(',').map((s) => s.trim()).filter((s) => s !== '')
              const unknown = given.find((s) => !(DEPLOYMENT_STATUSES as readonly string[]).includes(s))
              if (unknown !== undefined) throw invalidParam('deployment_status', `deployment_status is a comma list of ${DEPLOYMENT_STATUSES.join(', ')}; got ${JSON.stringify(unknown.slice(0, 50))}.`)
              statuses = given as DeploymentStatus[]
            }
            const known = type !== undefined && (SNIPPET_TYPES as readonly string[]).includes(type)
            const rows = await snippets.list({ ...(known ? { type } : {}), ...(statuses === undefined ? {} : { statuses }) })
            const list = rows.map((r) => ({
              id: r.id,
              slug: slugOf(r.title, r.id),
              title: r.title,
              status: 'publish',
              types: r.type === null ? [] : [r.type],
              files: r.files,
              deploymentStatus: r.status,
              artifactId: r.artifactId,
              version: r.version,
              createdAt: sqlDate(r.createdAt),
              isOwnedByCurrentUser: r.author === req.user.id,
              ...(r.type === 'builder-widget' ? { widgetName: slugOf(r.title, r.id) } : {})
            }))
            return { snippets: list, total: list.length }
          }
        }),
        endpoint({
          methods: ['POST'],
          args: {
            title: Type.String({ description: 'The snippet\'s title.', maxLength: 1000 }),
            type: Type.Optional(Type.String({ description: `The snippet's type: ${SNIPPET_TYPES.join(', ')}.` })),
            artifact_id: Type.Optional(Type.String({ description: 'The cloud artifact this snippet is the copy of (lowercase hex and hyphens).' })),
            version: Type.Optional(Type.Integer({ description: 'The artifact\'s version (stored as given).' }))
          },
          summary: 'Create a snippet (no files yet)',
          response: Type.Object({ id: Type.Integer(), title: Type.String() }),
          permission: mayManageSnippets.probing({ body: { title: 'Probe' } }),
          handler: async (req) => {
            const title = req.params.title.trim()
            if (title === '') throw assistantErrors.missing_title()
            const type = typeOf(req.params.type)
            const artifactId = req.params.artifact_id === undefined || req.params.artifact_id === '' ? null : artifactOf(req.params.artifact_id)
            const row = await snippets.create({ title, type: type ?? null, artifactId, version: req.params.version ?? null, author: req.user.id })
            return { id: row.id, title: row.title }
          }
        })
      ]
    }),
    route({
      path: '/snippets/validate',
      endpoints: [endpoint({
        methods: ['POST'],
        args: { files: filesArg },
        summary: 'Check files against the snippet rules without saving them',
        response: Type.Object({ valid: Type.Boolean(), message: Type.String() }),
        permission: mayManageSnippets.probing({ body: PROBE_FILES }),
        handler: async (req) => {
          const files = readFiles(req.params.files)
          requireMain(files.map((f) => f.name))
          await checkContent(files)
          return { valid: true, message: 'Snippet validation passed.' }
        }
      })]
    }),
    route({
      path: '/snippets/{id}',
      vars: { id: '[\\d]+' },
      args: idArg,
      endpoints: [endpoint({
        methods: ['DELETE'],
        args: {},
        summary: 'Delete a snippet and both its file sets',
        response: snippetAnswer(),
        permission: mayManageSnippets.probing(SNIPPET),
        handler: async (req) => {
          await snippets.remove(Number(req.params.id))
          return { success: true, message: 'Snippet deleted successfully.', post_id: Number(req.params.id) }
        }
      })]
    }),
    route({
      path: '/snippets/{id}/artifact',
      vars: { id: '[\\d]+' },
      args: idArg,
      endpoints: [endpoint({
        methods: ['POST', 'PUT', 'PATCH'],
        args: { artifact_id: Type.String({ description: 'The cloud artifact to link (lowercase hex and hyphens).' }) },
        summary: 'Link a snippet to a cloud artifact (its author only)',
        response: Type.Object({ success: Type.Boolean(), post_id: Type.Integer(), artifact_id: Type.String() }),
        permission: mayManageSnippets.probing({ ...SNIPPET, body: { artifact_id: 'ffffffff-0000' } }),
        handler: async (req) => {
          const artifactId = artifactOf(req.params.artifact_id)
          await snippets.link(Number(req.params.id), artifactId, req.user.id)
          return { success: true, post_id: Number(req.params.id), artifact_id: artifactId }
        }
      })]
    }),
    route({
      path: '/snippets/{id}/files',
      vars: { id: '[\\d]+' },
      args: idArg,
      endpoints: [
        endpoint({
          methods: ['GET'],
          args: {},
          summary: 'The snippet\'s files (with their content when include_content=true)',
          response: Type.Object({ files: Type.Array(Type.Object({ name: Type.String(), size: Type.Integer(), content: Type.Optional(Type.String()) })), total: Type.Integer(), isOwnedByCurrentUser: Type.Boolean() }),
          permission: mayManageSnippets.probing(SNIPPET),
          handler: async (req) => {
            const row = await snippets.get(Number(req.params.id))
            // Undeclared, as in the product (the reference lists `id` only).
            const withContent = ['true', '1'].includes(String(req.query.include_content))
            const files = (await snippets.files(row.id, withContent)).map(({ modified: _m, ...f }) => f)
            return { files, total: files.length, isOwnedByCurrentUser: row.author === req.user.id }
          }
        }),
        endpoint({
          methods: ['PUT', 'PATCH'],
          args: {
            files: filesArg,
            type: Type.Optional(Type.String({ description: `The snippet's type: ${SNIPPET_TYPES.join(', ')}.` }))
          },
          summary: 'Save files into the snippet\'s dev set (merged by name)',
          response: snippetAnswer({ files: Type.Integer({ description: 'How many files the dev set holds.' }) }),
          permission: mayManageSnippets.probing({ ...SNIPPET, body: PROBE_FILES }),
          handler: async (req) => {
            const row = await snippets.get(Number(req.params.id))
            const count = await saveFiles(snippets, row, { files: req.params.files, type: req.params.type })
            return { success: true, message: 'Snippet files updated successfully.', post_id: row.id, files: count }
          }
        })
      ]
    }),
    route({
      path: '/snippets/{id}/files/{filename}',
      vars: { id: '[\\d]+', filename: '[^/]+' },
      args: { ...idArg, filename: Type.String({ description: 'The file\'s name.' }) },
      endpoints: [endpoint({
        methods: ['GET'],
        args: {},
        summary: 'One file of the snippet, with its content',
        response: Type.Object({ name: Type.String(), content: Type.String(), size: Type.Integer() }),
        permission: mayManageSnippets.probing({ vars: { id: '999999', filename: 'main.php' } }),
        handler: async (req) => {
          await snippets.get(Number(req.params.id))
          return await snippets.file(Number(req.params.id), String(req.params.filename))
        }
      })]
    }),
    route({
      path: '/snippets/{id}/publish',
      vars: { id: '[\\d]+' },
      args: idArg,
      endpoints: [endpoint({
        methods: ['POST'],
        args: {},
        summary: 'Publish the snippet: its dev files become the prod files',
        response: PUBLISHED,
        permission: mayManageSnippets.probing(SNIPPET),
        handler: async (req) => await publish(snippets, Number(req.params.id))
      })]
    })
  ]
}
