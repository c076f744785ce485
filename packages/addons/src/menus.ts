/**
 * Navigation menus, the minimal storage the mega menu and the menu lookup
 * need (the core has no menus): menus with their items, each item a link
 * or a post, published or a draft, optionally naming the builder template
 * that is its mega-menu panel. Written with `cms menu` (commands.ts) and
 * by tests; read by megamenu.ts and ajaxselect2.ts.
 */
import { and, asc, eq, ilike, inArray, type SQL } from 'drizzle-orm'
import type { Store } from '@cms/store'
import { addonsMenuItems, addonsMenus } from './schema.js'

export type Menu = typeof addonsMenus.$inferSelect
export type MenuItem = typeof addonsMenuItems.$inferSelect
export const ITEM_STATUSES = ['publish', 'draft'] as const

export interface NewMenuItem {
  menuId: number
  title: string
  url?: string
  objectId?: number
  parent?: number
  position?: number
  status?: typeof ITEM_STATUSES[number]
  megaTemplate?: number | null
}

export interface Menus {
  create: (name: string, slug?: string) => Promise<Menu>
  addItem: (item: NewMenuItem) => Promise<MenuItem>
  /** Sets (or with null clears) the template of an item's mega-menu panel; false when there is no such item. */
  setMega: (itemId: number, template: number | null) => Promise<boolean>
  item: (id: number) => Promise<MenuItem | undefined>
  /** A menu's items in menu order. */
  items: (menuId: number) => Promise<MenuItem[]>
  /** Menus by name (`search`, case-insensitive) or id (`include`), by name, a page at a time. */
  list: (q: { search?: string, include?: number[], limit: number, offset: number }) => Promise<Menu[]>
}

const likeOf = (term: string): string => `%${term.replace(/[\\%_]/g, '\\$&')}%`

/** A slug of a menu name: lower-case letters, digits and dashes. */
export function menuSlug (name: string): string {
  const slug = name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 200)
  return slug === '' ? 'menu' : slug
}

export function menus (store: () => Store): Menus {
  return {
    async create (name, slug) {
      const [row] = await store().db.insert(addonsMenus).values({ name, slug: slug ?? menuSlug(name) }).returning()
      return row!
    },
    async addItem (item) {
      const [row] = await store().db.insert(addonsMenuItems).values({
        menuId: item.menuId,
        title: item.title,
        url: item.url ?? '',
        objectId: item.objectId ?? 0,
        parent: item.parent ?? 0,
        position: item.position ?? 0,
        status: item.status ?? 'publish',
        megaTemplate: item.megaTemplate ?? null
      }).returning()
      return row!
    },
    async setMega (itemId, template) {
      const rows = await store().db.update(addonsMenuItems).set({ megaTemplate: template }).where(eq(addonsMenuItems.id, itemId)).returning({ id: addonsMenuItems.id })
      return rows.length > 0
    },
    async item (id) {
      const [row] = await store().db.select().from(addonsMenuItems).where(eq(addonsMenuItems.id, id))
      return row
    },
    async items (menuId) {
      return await store().db.select().from(addonsMenuItems).where(eq(addonsMenuItems.menuId, menuId)).orderBy(asc(addonsMenuItems.position), asc(addonsMenuItems.id))
    },
    async list (q) {
      const where: SQL[] = []
      if (q.search !== undefined && q.search !== '') where.push(ilike(addonsMenus.name, likeOf(q.search)))
      if (q.include !== undefined) where.push(inArray(addonsMenus.id, q.include.length === 0 ? [0] : q.include))
      return await store().db.select().from(addonsMenus).where(and(...where))
        .orderBy(asc(addonsMenus.name), asc(addonsMenus.id)).limit(q.limit).offset(q.offset)
    }
  }
}
