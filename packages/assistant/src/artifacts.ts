/**
 * assistant/v1 artifacts (seo-rollback-assistant-addons.md §3.3): the
 * snippet linked to a cloud artifact, addressed by the artifact's id
 * (lowercase hex and hyphens): `artifacts/{artifact_id}/rename`,
 * `artifacts/{artifact_id}/files` (save into dev, with the version),
 * `artifacts/{artifact_id}` (publish; delete). "Manage snippets"
 * (`manage_options`). No snippet for the artifact: `404 snippet_not_found`.
 */
import { Type } from '@sinclair/typebox'
import { endpoint, Raw, route, type RelativeRouteDecl } from '@cms/rest'
import { mayManageSnippets } from './access.js'
import { assistantErrors } from './errors.js'
import type { SnippetStore } from './snippet-store.js'
import { PROBE_FILES, publish, PUBLISHED, saveFiles, snippetAnswer } from './snippets.js'

const VARS = { artifact_id: '[a-f0-9-]+' }
/** The permission probes' artifact (none has this id). */
const ARTIFACT = { vars: { artifact_id: 'ffffffff-0000' } }
const ARGS = { artifact_id: Type.String({ description: 'The cloud artifact\'s id (lowercase hex and hyphens).' }) }

export function artifactRoutes (snippets: SnippetStore): RelativeRouteDecl[] {
  const artifactOf = (req: { params: Record<string, unknown> }): string => String(req.params.artifact_id)
  return [
    route({
      path: '/artifacts/{artifact_id}/rename',
      vars: VARS,
      args: ARGS,
      endpoints: [endpoint({
        methods: ['POST', 'PUT', 'PATCH'],
        args: { title: Type.String({ description: 'The snippet\'s new title.', maxLength: 1000 }) },
        summary: 'Rename the snippet linked to the artifact',
        response: snippetAnswer({ title: Type.String() }),
        permission: mayManageSnippets.probing({ ...ARTIFACT, body: { title: 'Probe' } }),
        handler: async (req) => {
          const title = req.params.title.trim()
          if (title === '') throw assistantErrors.missing_title()
          const row = await snippets.byArtifact(artifactOf(req))
          await snippets.rename(row.id, title)
          return { success: true, message: 'Snippet renamed successfully.', post_id: row.id, title }
        }
      })]
    }),
    route({
      path: '/artifacts/{artifact_id}/files',
      vars: VARS,
      args: ARGS,
      endpoints: [endpoint({
        methods: ['PUT', 'PATCH'],
        args: {
          files: Raw<unknown[]>({ type: 'array', description: 'Files, each {name, content}: 1 to 100, names main.php or *.php, *.css, *.js.' }),
          version: Type.Optional(Type.Integer({ description: 'The artifact\'s version (stored as given).' }))
        },
        summary: 'Save files into the dev set of the snippet linked to the artifact',
        response: snippetAnswer({ artifact_id: Type.Union([Type.String(), Type.Null()]), files: Type.Integer({ description: 'How many files the dev set holds.' }) }),
        permission: mayManageSnippets.probing({ ...ARTIFACT, body: PROBE_FILES }),
        handler: async (req) => {
          const row = await snippets.byArtifact(artifactOf(req))
          const count = await saveFiles(snippets, row, { files: req.params.files, ...(req.params.version === undefined ? {} : { version: req.params.version }) })
          return { success: true, message: 'Snippet files updated successfully.', post_id: row.id, artifact_id: row.artifactId, files: count }
        }
      })]
    }),
    route({
      path: '/artifacts/{artifact_id}',
      vars: VARS,
      args: ARGS,
      endpoints: [
        endpoint({
          methods: ['DELETE'],
          args: {},
          summary: 'Delete the snippet linked to the artifact',
          response: snippetAnswer(),
          permission: mayManageSnippets.probing(ARTIFACT),
          handler: async (req) => {
            const row = await snippets.byArtifact(artifactOf(req))
            await snippets.remove(row.id)
            return { success: true, message: 'Snippet deleted successfully.', post_id: row.id }
          }
        }),
        endpoint({
          methods: ['POST', 'PUT', 'PATCH'],
          args: {},
          summary: 'Publish the snippet linked to the artifact',
          response: Type.Intersect([PUBLISHED, Type.Object({ artifact_id: Type.Union([Type.String(), Type.Null()]) })]),
          permission: mayManageSnippets.probing(ARTIFACT),
          handler: async (req) => {
            const row = await snippets.byArtifact(artifactOf(req))
            return { ...await publish(snippets, row.id), artifact_id: row.artifactId }
          }
        })
      ]
    })
  ]
}
