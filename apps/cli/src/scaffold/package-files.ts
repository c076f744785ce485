/**
 * The files of a new package (`cms new package`), as text: one route family
 * over one drizzle table, its migrations as drizzle-kit generates them from
 * that table, and a test running the permission prober. Kept as templates
 * here (not copied from a package) so the command works from the built CLI.
 */
import { randomUUID } from 'node:crypto'

export interface PackageNames {
  /** The folder and the last part of the npm name: `notes`. */
  name: string
  /** `notes/v1`. */
  namespace: string
}

/** `notes-board` -> `notesBoard`. */
function camel (name: string): string {
  return name.replace(/[-_]+([a-z0-9])/g, (_m, c: string) => c.toUpperCase())
}

/** `notes-board` -> `notes_board`. */
function snake (name: string): string {
  return name.replace(/-/g, '_')
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`

/** Relative path -> content. */
export function packageFiles ({ name, namespace }: PackageNames, now = Date.now()): Record<string, string> {
  const table = `${snake(name)}_items`
  const exported = `${camel(name)}Package`
  const capability = `edit_${snake(name)}_items`
  const prefix = snake(name)
  return {
    'package.json': json({
      name: `@cms/${name}`,
      version: '0.1.0',
      private: true,
      type: 'module',
      exports: { '.': './src/index.ts' },
      cms: { plugin: './src/index.ts', namespaces: [namespace] },
      scripts: {
        typecheck: 'tsc -p tsconfig.json',
        lint: 'eslint .',
        test: 'tap',
        'db:generate': 'node ../../scripts/db-generate.mjs'
      },
      dependencies: {
        '@cms/core': 'workspace:*',
        '@cms/rest': 'workspace:*',
        '@cms/store': 'workspace:*',
        'drizzle-orm': 'catalog:'
      },
      devDependencies: {
        '@cms/testing': 'workspace:*',
        '@types/node': 'catalog:',
        tap: 'catalog:',
        tsx: 'catalog:',
        typescript: 'catalog:'
      }
    }),
    '.taprc': `node-arg:
  - --import=tsx
allow-incomplete-coverage: true
disable-coverage: true
timeout: 480
jobs: 2
include:
  - test/**/*.test.ts
plugin:
  - "!@tapjs/typescript"
  - "!@tapjs/mock"
`,
    'tsconfig.json': '{ "extends": "../../tsconfig.base.json", "include": ["src", "test"] }\n',
    'drizzle.config.ts': `/**
 * The package's tables (src/schema.ts) and their migrations (migrations/),
 * which the gateway runs at start into \`drizzle.__migrations_cms_${snake(name)}\`.
 * After changing a table: \`pnpm --filter @cms/${name} db:generate\` writes the next migration.
 */
export default {
  dialect: 'postgresql',
  schema: './src/schema.ts',
  out: './migrations',
  casing: 'snake_case',
  strict: true,
  verbose: true
}
`,
    'src/schema.ts': `/** The tables of @cms/${name}: the one source of its migrations (drizzle.config.ts). */
import { integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core'

export const items = pgTable('${table}', {
  id: serial().primaryKey(),
  title: text().notNull(),
  author: integer().notNull(),
  createdAt: timestamp({ withTimezone: true, mode: 'string' }).notNull().defaultNow()
})
`,
    'src/index.ts': `/**
 * @cms/${name}: serves ${namespace} (src/items.ts). Found by the gateway
 * through the \`cms\` field of its package.json; a profile that lists
 * ${namespace} serves it.
 */
import { fileURLToPath } from 'node:url'
import { definePackage } from '@cms/core'
import { CAPABILITY, itemRoutes } from './items.js'

export const NAMESPACE = '${namespace}'

export const ${exported} = definePackage({
  name: '@cms/${name}',
  dependencies: ['@cms/core'],
  namespaces: [NAMESPACE],
  // What it adds to the core, loaded in every process of the deployment.
  contribute (api) {
    api.migrations(fileURLToPath(new URL('../migrations', import.meta.url)))
    // Who may add items: a capability of the package's own, granted to these roles.
    api.capability(CAPABILITY, ['administrator', 'editor'])
  },
  // Its routes, where ${namespace} is served.
  serve (api) {
    api.namespace(NAMESPACE, () => itemRoutes(api.services.store))
  }
})
`,
    'src/items.ts': `/**
 * The items of ${namespace}: a paged list anyone may read and a validated
 * create for holders of the package's capability. The schema, the routes,
 * their permissions and handlers, in one file.
 */
import { asc, count, desc, sql } from 'drizzle-orm'
import type { Store } from '@cms/store'
import {
  argsFromSchema, can, checkPage, collectionParams, createdAt, declareErrors, endpoint, everyone, field,
  invalidParam, itemSchema, pageHeaders, RestResponse, route, type RelativeRouteDecl
} from '@cms/rest'
import { items } from './schema.js'

export const CAPABILITY = '${capability}'

const ALL = ['view', 'edit', 'embed']

const errors = declareErrors({
  ${prefix}_invalid_page_number: { status: 400, message: 'The page number requested is larger than the number of pages available.' }
})

const itemSchemaOf = itemSchema('${snake(name)}-item', {
  id: field({ description: 'Unique identifier for the item.', type: 'integer', context: ALL, readonly: true }),
  title: field({ description: 'The title of the item.', type: 'string', context: ALL, required: true, minLength: 1, maxLength: 200 }),
  author: field({ description: 'The ID of the user who added the item.', type: 'integer', context: ALL, readonly: true }),
  date: field({ description: 'When the item was added (UTC).', type: 'string', format: 'date-time', context: ALL, readonly: true })
})

type Row = typeof items.$inferSelect

function present (row: Row): Record<string, unknown> {
  return { id: row.id, title: row.title, author: row.author, date: new Date(row.createdAt).toISOString().slice(0, 19) }
}

export function itemRoutes (store: Store): RelativeRouteDecl[] {
  const list = collectionParams({
    schema: itemSchemaOf,
    orderby: { enum: ['id', 'title'], default: 'id', description: 'Sort collection by item attribute.' }
  })
  return [
    route({
      path: '/items',
      allowBatch: true,
      schema: itemSchemaOf,
      endpoints: [
        endpoint({
          methods: ['GET'],
          summary: 'List items',
          args: list,
          permission: everyone.because('items are public'),
          handler: async (req) => {
            const { page, per_page: perPage, search, order, orderby, offset } = req.params
            const where = search === undefined || search === '' ? undefined : sql\`strpos(lower(\${items.title}), lower(\${search})) > 0\`
            const [counted] = await store.db.select({ total: count() }).from(items).where(where)
            const info = { total: counted?.total ?? 0, perPage, page }
            checkPage(info, errors.${prefix}_invalid_page_number)
            const column = orderby === 'title' ? items.title : items.id
            const rows = await store.db.select().from(items).where(where)
              .orderBy(order === 'asc' ? asc(column) : desc(column), asc(items.id))
              .limit(perPage).offset(offset ?? (page - 1) * perPage)
            return new RestResponse(rows.map(present), 200, pageHeaders(req, info))
          }
        }),
        endpoint({
          methods: ['POST'],
          summary: 'Add an item',
          // \`title\` required, 1 to 200 characters; the read-only fields left out.
          args: argsFromSchema(itemSchemaOf, 'create'),
          permission: can(CAPABILITY, { probe: { body: { title: 'probe' } } }),
          handler: async (req) => {
            const title = req.params.title.trim()
            if (title === '') throw invalidParam('title', 'title is empty.')
            const [row] = await store.db.insert(items).values({ title, author: req.user.id }).returning()
            return createdAt(req, present(row!), row!.id)
          }
        })
      ]
    })
  ]
}
`,
    'test/items.test.ts': `import t from 'tap'
import { checkPermissions, testApp } from '@cms/testing'
import { NAMESPACE, ${exported} } from '../src/index.js'

t.test('${namespace} items: a paged list and a validated create', async (t) => {
  const h = await testApp({ packages: [${exported}], namespaces: ['cms/v2', NAMESPACE] })
  t.teardown(h.close)
  const editor = await h.caller('editor')
  for (const title of ['First', 'Second', 'Third']) {
    const made = await h.call('POST', \`/\${NAMESPACE}/items\`, { as: editor, body: { title } })
    t.equal(made.status, 201, title)
    t.match(made.headers.location, new RegExp(\`rest_route=/\${NAMESPACE}/items/\${made.body.id}$\`))
  }
  t.equal((await h.call('POST', \`/\${NAMESPACE}/items\`, { as: editor, body: {} })).status, 400, 'title required')
  t.equal((await h.call('POST', \`/\${NAMESPACE}/items\`, { as: editor, body: { title: 'x'.repeat(201) } })).status, 400, 'title too long')

  const page = await h.call('GET', \`/\${NAMESPACE}/items\`, { query: { per_page: 2, order: 'asc' } })
  t.same(page.body.map((i: { title: string }) => i.title), ['First', 'Second'])
  t.equal(page.headers['x-cms-total'], '3')
  t.match(page.headers.link, /rel="next"/)
  t.equal((await h.call('GET', \`/\${NAMESPACE}/items\`, { query: { page: 3, per_page: 2 } })).status, 400, 'past the last page')

  t.test('every route answers its declared permission', async (t) => {
    t.equal(await checkPermissions(t, h, { only: (target) => target.key.includes(\` /\${NAMESPACE}\`) }), 3)
  })
})
`,
    [`migrations/0000_${table}.sql`]: `CREATE TABLE "${table}" (
\t"id" serial PRIMARY KEY NOT NULL,
\t"title" text NOT NULL,
\t"author" integer NOT NULL,
\t"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
`,
    'migrations/meta/_journal.json': json({
      version: '7',
      dialect: 'postgresql',
      entries: [{ idx: 0, version: '7', when: now, tag: `0000_${table}`, breakpoints: true }]
    }),
    'migrations/meta/0000_snapshot.json': json(snapshotOf(table))
  }
}

/** drizzle-kit's snapshot of the table, so its next \`generate\` diffs against it. */
function snapshotOf (table: string): unknown {
  const column = (name: string, type: string, extra: Record<string, unknown> = {}): Record<string, unknown> =>
    ({ name, type, primaryKey: name === 'id', notNull: true, ...extra })
  return {
    id: randomUUID(),
    prevId: '00000000-0000-0000-0000-000000000000',
    version: '7',
    dialect: 'postgresql',
    tables: {
      [`public.${table}`]: {
        name: table,
        schema: '',
        columns: {
          id: column('id', 'serial'),
          title: column('title', 'text'),
          author: column('author', 'integer'),
          created_at: column('created_at', 'timestamp with time zone', { default: 'now()' })
        },
        indexes: {},
        foreignKeys: {},
        compositePrimaryKeys: {},
        uniqueConstraints: {},
        policies: {},
        checkConstraints: {},
        isRLSEnabled: false
      }
    },
    enums: {},
    schemas: {},
    sequences: {},
    roles: {},
    policies: {},
    views: {},
    _meta: { columns: {}, schemas: {}, tables: {} }
  }
}
