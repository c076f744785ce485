/**
 * Tables owned by @cms/addons (migrations in ../migrations, recorded in
 * `drizzle.__migrations_cms_addons`): the widget builder's custom widgets
 * with every saved version of their definition, and the navigation menus
 * the mega menu reads (the core has no menus).
 */
import { index, integer, pgTable, primaryKey, serial, text, timestamp } from 'drizzle-orm/pg-core'
import { jsonb } from '@cms/store/columns'

/** A custom widget: its current title and the number of its latest version. */
export const addonsWidgets = pgTable('addons_widgets', {
  id: serial('id').primaryKey(),
  title: text('title').notNull(),
  author: integer('author').notNull(),
  /** The latest version (versions count from 1). */
  version: integer('version').notNull(),
  created: timestamp('created', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  modified: timestamp('modified', { withTimezone: true, mode: 'date' }).notNull().defaultNow()
})

/** Every saved definition of a widget, kept as data (never executed). */
export const addonsWidgetVersions = pgTable('addons_widget_versions', {
  widgetId: integer('widget_id').notNull().references(() => addonsWidgets.id, { onDelete: 'cascade' }),
  version: integer('version').notNull(),
  data: jsonb('data').notNull(),
  savedBy: integer('saved_by').notNull(),
  saved: timestamp('saved', { withTimezone: true, mode: 'date' }).notNull().defaultNow()
}, (t) => [primaryKey({ columns: [t.widgetId, t.version] })])

/** A navigation menu. */
export const addonsMenus = pgTable('addons_menus', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique()
})

/**
 * A menu item: a link (`url`) or a post it points at, its place in the
 * menu, whether it is published, and the builder template (a builder
 * library post) shown as its mega-menu panel.
 */
export const addonsMenuItems = pgTable('addons_menu_items', {
  id: serial('id').primaryKey(),
  menuId: integer('menu_id').notNull().references(() => addonsMenus.id, { onDelete: 'cascade' }),
  parent: integer('parent').notNull().default(0),
  position: integer('position').notNull().default(0),
  title: text('title').notNull(),
  url: text('url').notNull().default(''),
  objectId: integer('object_id').notNull().default(0),
  status: text('status').notNull().default('publish'),
  megaTemplate: integer('mega_template')
}, (t) => [index('addons_menu_items_menu_idx').on(t.menuId, t.position)])
