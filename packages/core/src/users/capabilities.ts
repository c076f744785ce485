/**
 * Roles, capabilities and the meta capabilities the core maps onto them.
 * Every permission check of every namespace asks `can`; nothing checks a
 * role by name.
 */
import type { Principal } from '@cms/rest'

export const ROLES = ['administrator', 'editor', 'author', 'contributor', 'subscriber'] as const
export type Role = typeof ROLES[number]

const PAGE_CAPS = [
  'edit_pages', 'edit_others_pages', 'edit_published_pages', 'edit_private_pages', 'publish_pages',
  'read_private_pages', 'delete_pages', 'delete_others_pages', 'delete_published_pages', 'delete_private_pages'
]

const SUBSCRIBER = ['read']
const CONTRIBUTOR = [...SUBSCRIBER, 'edit_posts', 'delete_posts']
const AUTHOR = [...CONTRIBUTOR, 'upload_files', 'edit_published_posts', 'publish_posts', 'delete_published_posts']
const EDITOR = [
  ...AUTHOR, 'unfiltered_html', 'moderate_comments', 'manage_categories', 'manage_links',
  'edit_others_posts', 'edit_private_posts', 'read_private_posts', 'delete_others_posts',
  'delete_private_posts', ...PAGE_CAPS
]
const ADMINISTRATOR = [
  ...EDITOR, 'activate_plugins', 'create_users', 'delete_plugins', 'delete_themes', 'delete_users',
  'edit_dashboard', 'edit_files', 'edit_plugins', 'edit_theme_options', 'edit_themes', 'edit_users',
  'export', 'import', 'install_plugins', 'install_themes', 'list_users', 'manage_options',
  'promote_users', 'remove_users', 'switch_themes', 'unfiltered_upload', 'update_core',
  'update_plugins', 'update_themes'
]

/** The core capability set of each role. */
export const roleCapabilities: Readonly<Record<Role, ReadonlySet<string>>> = {
  subscriber: new Set(SUBSCRIBER),
  contributor: new Set(CONTRIBUTOR),
  author: new Set(AUTHOR),
  editor: new Set(EDITOR),
  administrator: new Set(ADMINISTRATOR)
}

/**
 * The capabilities each role grants in one composed app: the core's sets,
 * plus what packages grant while they register (the SEO package's
 * `manage_seo_options` to administrators). `can()` answers from these sets,
 * so a granted capability is checked like a core one. A package's grant
 * follows its activation: `visible(off)` leaves out what only packages
 * whose contributions are off granted (a deactivated plugin's capability
 * grants nothing; a core capability is never taken away).
 */
export class RoleRegistry {
  private readonly caps = new Map<Role, Set<string>>(ROLES.map((r) => [r, new Set(roleCapabilities[r])]))
  /** Capabilities packages declared, with the package that declared each. */
  private readonly declared = new Map<string, string>()
  /** Per role, the capabilities granted only by packages, with the packages granting each. */
  private readonly grantedBy = new Map<Role, Map<string, Set<string>>>()
  /** The views of {@link visible}, by the off set (the activation keeps one set per state). */
  private readonly views = new WeakMap<ReadonlySet<string>, RoleRegistry>()

  /** Declares a capability a package checks (documentation and a guard against typos in grants). */
  declare (capability: string, owner: string): void {
    if (!/^[a-z0-9_]{1,100}$/.test(capability)) throw new TypeError(`capability ${JSON.stringify(capability)} is not a plain name`)
    this.declared.set(capability, owner)
  }

  /** Grants capabilities to a role (granting one twice is harmless); `owner`: the package granting them. */
  grant (role: Role, capabilities: readonly string[], owner?: string): void {
    const set = this.caps.get(role)
    if (set === undefined) throw new TypeError(`there is no role ${String(role)}`)
    for (const cap of capabilities) {
      const known = set.has(cap)
      set.add(cap)
      const owners = this.grantedBy.get(role)?.get(cap)
      if (owner === undefined || (known && owners === undefined)) {
        // The core's or an ownerless grant: never off.
        this.grantedBy.get(role)?.delete(cap)
        continue
      }
      if (owners !== undefined) owners.add(owner)
      else this.grantedBy.set(role, (this.grantedBy.get(role) ?? new Map<string, Set<string>>()).set(cap, new Set([owner])))
    }
  }

  /** The capabilities of a role (empty for an unknown role). */
  capabilitiesOf (role: string): ReadonlySet<string> {
    return this.caps.get(role as Role) ?? new Set()
  }

  /**
   * The grants in force while the packages `off` names are switched off (a
   * deactivated plugin's: the activation's off set): this registry when no
   * grant is theirs alone, else a view without those, made once per set.
   */
  visible (off: ReadonlySet<string>): RoleRegistry {
    if (off.size === 0 || this.grantedBy.size === 0) return this
    let view = this.views.get(off)
    if (view === undefined) {
      view = this
      for (const [role, granted] of this.grantedBy) {
        const gone = [...granted].filter(([, owners]) => [...owners].every((o) => off.has(o))).map(([cap]) => cap)
        if (gone.length === 0) continue
        if (view === this) {
          view = new RoleRegistry()
          for (const [r, caps] of this.caps) view.caps.set(r, new Set(caps))
          for (const [cap, owner] of this.declared) view.declared.set(cap, owner)
        }
        for (const cap of gone) view.caps.get(role)!.delete(cap)
      }
      this.views.set(off, view)
    }
    return view
  }

  /** Capabilities declared by packages (name -> package). */
  declaredCapabilities (): ReadonlyMap<string, string> { return this.declared }
}

export function isRole (value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value)
}

/** What a meta capability about a post needs to know of it. */
export interface PostLike {
  type: string
  author: number
  status: string
  /** Set when the post is the site's front page or posts page. */
  isSpecialPage?: boolean
}

export interface UserLike {
  id: number
}

type TypeCaps = Readonly<Record<'edit' | 'edit_others' | 'edit_published' | 'edit_private' | 'publish' | 'read_private' | 'delete' | 'delete_others' | 'delete_published' | 'delete_private', string>>

// Made once: every capability check about a post asks for them (several per post of a page).
function capsOf (plural: 'posts' | 'pages'): TypeCaps {
  return Object.freeze({
    edit: `edit_${plural}`,
    edit_others: `edit_others_${plural}`,
    edit_published: `edit_published_${plural}`,
    edit_private: `edit_private_${plural}`,
    publish: `publish_${plural}`,
    read_private: `read_private_${plural}`,
    delete: `delete_${plural}`,
    delete_others: `delete_others_${plural}`,
    delete_published: `delete_published_${plural}`,
    delete_private: `delete_private_${plural}`
  })
}
const POST_TYPE_CAPS = capsOf('posts')
const PAGE_TYPE_CAPS = capsOf('pages')

/** Capability names of a post type: `edit_posts` or `edit_pages` and so on. */
export function typeCaps (type: string): TypeCaps {
  return type === 'page' ? PAGE_TYPE_CAPS : POST_TYPE_CAPS
}

const PUBLISHED = new Set(['publish', 'future'])

/**
 * Maps a meta capability to the primitive capabilities it needs for this
 * user, as the core's map_meta_cap does. `['do_not_allow']` denies.
 */
export function mapMetaCap (cap: string, userId: number, object?: unknown): string[] {
  switch (cap) {
    case 'edit_post':
    case 'delete_post':
    case 'read_post':
    case 'publish_post': {
      const post = object as PostLike | undefined
      if (post === undefined) return ['do_not_allow']
      if (post.type === 'revision') return cap === 'read_post' ? ['read'] : ['do_not_allow']
      const caps = typeCaps(post.type)
      const own = userId !== 0 && post.author === userId
      if (cap === 'publish_post') return [caps.publish]
      if (cap === 'read_post') {
        if (post.status === 'publish' || post.status === 'inherit') return ['read']
        if (post.status === 'private') return own ? ['read'] : [caps.read_private]
        if (post.status === 'trash') return mapMetaCap('edit_post', userId, post)
        return own ? ['read'] : mapMetaCap('edit_post', userId, post)
      }
      const verb = cap === 'edit_post' ? 'edit' : 'delete'
      const need: string[] = []
      if (cap === 'delete_post' && post.isSpecialPage === true) return ['manage_options']
      if (own) {
        need.push(PUBLISHED.has(post.status) ? caps[`${verb}_published`] : caps[verb])
        if (verb === 'edit' && PUBLISHED.has(post.status)) need.push(caps.edit)
      } else {
        need.push(caps[`${verb}_others`])
        if (PUBLISHED.has(post.status)) need.push(caps[`${verb}_published`])
        if (post.status === 'private') need.push(caps[`${verb}_private`])
      }
      return need
    }
    case 'edit_user':
    case 'delete_user':
    case 'promote_user': {
      const target = object as UserLike | undefined
      // Signed-in users edit themselves whatever their role (cms-core.md §12: even subscribers
      // manage their own application passwords), as the core's empty capability list allows.
      if (cap === 'edit_user' && target !== undefined && target.id === userId && userId !== 0) return []
      return [cap === 'edit_user' ? 'edit_users' : cap === 'delete_user' ? 'delete_users' : 'promote_users']
    }
    // Application passwords of a user are managed by whoever may edit that user (cms-core.md §12).
    case 'create_app_password':
    case 'list_app_passwords':
    case 'read_app_password':
    case 'edit_app_password':
    case 'delete_app_passwords':
    case 'delete_app_password':
      return mapMetaCap('edit_user', userId, object)
    case 'list_users':
      return ['list_users']
    case 'assign_term':
    case 'assign_categories':
    case 'assign_post_tags':
      return ['edit_posts']
    case 'manage_categories':
    case 'edit_term':
    case 'delete_term':
    case 'edit_categories':
    case 'delete_categories':
      return ['manage_categories']
    case 'manage_post_tags':
    case 'edit_post_tags':
    case 'delete_post_tags':
      return ['manage_categories']
    default:
      return [cap]
  }
}

/** A signed-in user (or the anonymous caller) as the kernel sees it. */
export class Caller implements Principal {
  readonly caps: ReadonlySet<string>
  /**
   * `keptAs`: the caller's rights as a token, for the kernel's kept answers
   * (`Principal.keptAs`); given by the authenticator to a caller it verified
   * under a credentials epoch (authenticate.ts), else none (never kept).
   */
  constructor (readonly id: number, readonly login: string, readonly roles: readonly Role[], readonly appPasswordUuid?: string, registry?: RoleRegistry, readonly keptAs?: string) {
    const caps = new Set<string>()
    for (const role of roles) for (const c of registry?.capabilitiesOf(role) ?? roleCapabilities[role]) caps.add(c)
    this.caps = caps
  }

  can (capability: string, object?: unknown): boolean {
    return can(this, capability, object)
  }
}

export const anonymousCaller = new Caller(0, '', [])

/** The one capability check: primitive or meta capability, optionally about an object. */
export function can (user: { id: number, caps: ReadonlySet<string> }, capability: string, object?: unknown): boolean {
  const needed = mapMetaCap(capability, user.id, object)
  return needed.every((c) => c !== 'do_not_allow' && user.caps.has(c))
}
