/**
 * The package platform: what a deployment is composed of. Each package
 * (the core included) is a Fastify plugin made with `definePackage`, in two
 * parts:
 *
 *   contribute  what it adds to the core (post and user meta, REST fields,
 *               capabilities, post types, taxonomies, the options those
 *               read, services for dependent packages, its migrations):
 *               run in every process of the deployment, even where its
 *               namespaces are served by another process, so that a write
 *               through the gateway knows an SEO meta key whose routes run
 *               elsewhere;
 *   serve       its routes, lifecycle-event listeners, background work and
 *               Fastify hooks: run only where the package serves (one of
 *               its namespaces is built here, or it has none).
 *
 * Its lifecycle-event listeners are declared by name in the definition
 * (`listeners`), so every process knows them (an event is pruned only once
 * every listener of the deployment has it); each runs where `serve` runs.
 * The gateway registers the packages a profile needs, then runs their
 * migrations and mounts the kernel with what they declared.
 */
import fp from 'fastify-plugin'
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify'
import { type Static, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { defineNamespace, type KernelOptions, type NamespaceDecl, type RouteDecl, type RouteInput } from '@cms/rest'
import type { MigrationSet } from '@cms/store'
import type { Role } from './users/capabilities.js'
import type { MetaKey, MetaOptions } from './platform/meta.js'
import type { FieldDefinition, FieldObjectType } from './platform/fields.js'
import type { Services } from './services.js'
import type { UpstreamClient } from './platform/upstream.js'
import { resolveInside } from './platform/paths.js'
import type { PackageOption } from './platform/package-options.js'
import type { LifecycleListener, LifecycleTopic } from './platform/events/index.js'
import type { ContentReader } from './content/reader.js'
import { packageSecrets, type Secrets } from './platform/secrets.js'
import type { PostTypeDefinition, TaxonomyDefinition } from './content/type-registry.js'

/** Starts background work; returns what stops it (called when the app closes). */
export type BackgroundStart = () => (() => Promise<void> | void)

/**
 * A site package (a plugin or a theme, as the package registry knows them)
 * whose activation decides whether namespaces of a code package are served:
 * `namespaces` (default all the code package's) are served only while every
 * site package naming them is active (a theme: the active theme).
 * `contributions` (default: when it names no `namespaces`, the whole
 * package) says whether the code package's meta keys and fields follow it
 * too: they leave the core's answers and schemas while it is inactive (their
 * stored values are kept) and are writable again once it is active.
 */
export interface SitePackage {
  type: 'plugin' | 'theme'
  slug: string
  namespaces?: readonly string[]
  contributions?: boolean
}

/**
 * Whether a site package is active now, read with a token that changes when
 * activation may have (the request's `epoch('activation')`, else the commit
 * horizon): the package that keeps the statuses (the registry) answers from
 * a cache it re-reads only when the token moved.
 */
export type ActivationReader = (validity: () => Promise<string | undefined>) => Promise<(type: SitePackage['type'], slug: string) => boolean>

/**
 * The typed name of a service one package provides to the packages that
 * depend on it (`api.provide(key, value)` / `api.require(key)`). The
 * providing package exports the key; `T` is what `require` answers.
 */
export interface ServiceKey<T> {
  readonly name: string
  /** Never set: carries `T` for the type checker. */
  readonly type?: T
}

/** A service key named `name` (by convention `<package>/<service>`: `@cms/registry/packages`). */
export function serviceKey<T> (name: string): ServiceKey<T> {
  return { name }
}

/** What both parts of a package are handed: the deployment, its content and the package's own state. */
export interface PackageBase {
  /** The package's name (`@cms/builder`). */
  readonly name: string
  /** The store, the deployment's settings and the shared registries. */
  readonly services: Services
  /** Whether this process builds `namespace` (a profile, a namespace service or a remote namespace may leave it out). */
  serves: (namespace: string) => boolean
  /** Whether the deployment serves `namespace`, built here or proxied to another process (a remote namespace). */
  exposes: (namespace: string) => boolean
  /**
   * The outside service `name` (`rank-tracker`), configured by
   * `CMS_UPSTREAM_RANK_TRACKER_URL` / `_TOKEN` / `_TIMEOUT_MS`; throws
   * `503 rest_upstream_unconfigured` naming the setting when it is not.
   * Call it where the route needs it (in the handler, after validation).
   */
  upstream: (name: string) => UpstreamClient
  /**
   * Declares a site option the package owns (stored in the site's options,
   * `cms option get/set <name>`): its TypeBox schema and default. The
   * handle is the one way to read and write it; writes are checked against
   * the schema. Declare it in `contribute` when a contribution reads it (a
   * field, a meta check); an option only the package's routes read may be
   * declared in `serve`.
   */
  option: <S extends TSchema>(name: string, schema: S, opts: { default: Static<S>, description?: string }) => PackageOption<S>
  /**
   * The core's content without touching its tables: `posts(query)` with the list route's filters (and meta conditions),
   * `post(id)` with meta and terms, `userMeta(id)`; for a package's own documents `createPost`, `updateMeta`, `deleteMetaEverywhere`.
   */
  readonly content: ContentReader
  /** The deployment's content directory (uploads, files packages keep). */
  readonly contentDir: string
  /** A path from a request resolved inside the content directory, or `400 rest_invalid_path` (see paths.ts). */
  resolveContent: (path: string) => Promise<string>
  /** Seals and opens secrets the package keeps at rest (a third party's tokens), under a key of its own (secrets.ts). */
  readonly secrets: Secrets
  /**
   * The service a package this one depends on provided under `key` (the
   * dependency registers first, so it is there while this one registers);
   * throws when none of its dependencies provided it.
   */
  require: <T>(key: ServiceKey<T>) => T
  /**
   * Hands a service (an object of functions) to the packages that depend on
   * this one; they get it with `require(key)`, tools composing packages with
   * `platform.service(key)`. Each key is provided once. Provided in `serve`,
   * it is there only where the package serves (its background work's queue).
   */
  provide: <T>(key: ServiceKey<T>, value: T) => void
  /**
   * A service that a package this one does not depend on may provide in
   * some compositions (the package registry, to act on other packages):
   * looked up when the answered function is called, after every package
   * registered; undefined where no package provided it.
   */
  optional: <T>(key: ServiceKey<T>) => () => T | undefined
}

/**
 * What a package adds to the core, handed to its `contribute`: run in every
 * process of the deployment, whether or not its namespaces are served there.
 */
export interface ContributionApi extends PackageBase {
  /** The package's drizzle-kit migrations folder (absolute), run after its dependencies'. */
  migrations: (folder: string) => void
  /**
   * Registers a post, user or comment meta key: shown under `meta` in cms/v2
   * posts and pages (`post`), users (`user`) or comments (`comment`), and writable there as the core's
   * keys are (validated before any write, its contexts, the object's update
   * permission plus `opts.authorize`, `sanitize` for writers without
   * `unfiltered_html`).
   */
  registerMeta: (objectType: 'post' | 'user' | 'comment', key: string, schema: MetaKey, opts?: MetaOptions) => void
  /**
   * Adds a top-level field `name` to the cms/v2 answers of `post`, `page`
   * or `user` objects (the core's `register_rest_field`): in the item schema (OPTIONS,
   * the index, OpenAPI), computed by `def.get` in the contexts its schema
   * declares (default view and edit) and only when `_fields` asks for it,
   * `def.getMany` for a list page at once; writable through create and
   * update when `def.update` is given (validated against the schema before
   * any write, run in the write's transaction; posts and pages only),
   * read-only otherwise. Its
   * value must depend only on the URL, the caller and stored data (see
   * fields.ts: anonymous answers are kept until the next commit).
   */
  registerField: <T = unknown>(objectType: FieldObjectType, name: string, def: FieldDefinition<T>) => void
  /**
   * Registers a post type the package keeps its documents in: listed by
   * `/cms/v2/types` (its `rest_namespace` / `rest_base` name the package's
   * own collection route, which must answer: served here or proxied), its
   * capabilities derived as the core's are. Not viewable types stay out of `/cms/v2/search`.
   */
  postType: (def: PostTypeDefinition) => void
  /** Registers a taxonomy, listed by `/cms/v2/taxonomies`. */
  taxonomy: (def: TaxonomyDefinition) => void
  /**
   * Makes this package the one that says which site packages are active
   * (the registry); the namespaces of packages declaring `activation` are
   * served by that answer. At most one package decides.
   */
  decidesActivation: (reader: ActivationReader) => void
  /** Declares a capability the package checks and grants it to roles. */
  capability: (name: string, grantedTo: readonly Role[]) => void
}

/**
 * What a package serves, handed to its `serve`: run only where the package
 * serves (one of its namespaces is built in this process, or it has none).
 */
export interface PackageApi extends PackageBase {
  /**
   * Declares a namespace and its routes, built once every package has
   * registered (so meta and capabilities other packages add are known).
   * Ignored when the deployment does not serve it. `options` are the
   * profile's per-namespace options. Route paths are relative to the
   * namespace (`/notes/{id}`); a route naming another namespace is refused
   * (`defineNamespace` in @cms/rest).
   */
  namespace: (name: string, build: (options: Record<string, unknown>) => readonly RouteInput[]) => void
  /** Routes outside any namespace (`/`, `/batch/v1`: the core's). */
  routes: (build: () => RouteDecl[]) => void
  /** Work that runs while the app runs (started when it is ready, stopped when it closes). */
  background: (name: string, start: BackgroundStart) => void
  /**
   * Runs the listener the definition declares as `name` (`listeners`: name
   * to topic: `post.created`, `post.updated`, `post.status_changed`,
   * `post.trashed`, `post.deleted`, `user.deleted`), delivered after the
   * change committed and never lost (at least once, one replica at a time;
   * see events/index.ts). Deliveries are recorded under `<package>:<name>`.
   * Every declared listener must be given its function here.
   */
  on: (name: string, listener: LifecycleListener) => void
}

/** What a package's command-line command is given (the command line builds it). */
export interface PackageCommandContext {
  env: NodeJS.ProcessEnv
  /** Writes a line to standard output. */
  out: (text: string) => void
  /** Shows a progress line (rewritten in place on a terminal; nothing otherwise). */
  progress: (text: string) => void
  /** Runs `fn` with the services of the installed packages on the configured store, then closes it. */
  withServices: <T>(fn: (services: Services) => Promise<T>) => Promise<T>
}

/**
 * A command a package adds to the command line (`cms <name> ...`), listed in
 * its usage with the built-in ones.
 */
export interface PackageCommand {
  name: string
  /** One line for the overall usage text. */
  summary: string
  /** Full usage text (`cms <name> --help`). */
  usage: string
  /** Runs with the arguments after the name; answers the exit code (default 0). Throws `CommandUsageError` for a bad command line. */
  run: (args: string[], ctx: PackageCommandContext) => Promise<number | void>
  /** The subcommands that write (`'*'`: every call): each such call leaves an entry in the audit log. */
  writes?: readonly string[]
}

/** A bad command line in a package's command: one line and exit code 2, as the built-in commands. */
export class CommandUsageError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'CommandUsageError'
  }
}

/** What `definePackage` returns: the plugin and what the gateway needs to know before registering it. */
export interface CmsPackage {
  readonly name: string
  /** Packages that must be registered first (their names). */
  readonly dependencies: readonly string[]
  /** Namespaces this package can serve. */
  readonly namespaces: readonly string[]
  /** Commands the package adds to the command line. */
  readonly commands: readonly PackageCommand[]
  /** Its pages outside the REST prefix (see {@link PackageDefinition.pages}). */
  readonly pages: readonly string[]
  /** The site packages whose activation switches its namespaces (see {@link PackageDefinition.activation}). */
  readonly activation: readonly SitePackage[]
  /** Whether it says which site packages are active (see {@link PackageDefinition.decidesActivation}). */
  readonly decidesActivation: boolean
  readonly plugin: FastifyPluginAsync<PackagePluginOptions>
}

/** The options every package plugin is registered with. */
export interface PackagePluginOptions {
  platform: Platform
  /** The package's own options, validated against its schema. */
  options?: unknown
  /**
   * Whether the package serves in this process (its `serve` runs, its
   * listeners with it). Default true; false where its namespaces are served
   * by another process: only its contributions are loaded.
   */
  serve?: boolean
}

export interface PackageDefinition<O extends TSchema, C = void> {
  name: string
  dependencies?: readonly string[]
  namespaces: readonly string[]
  /** TypeBox schema of the package's options (defaults applied before the check). */
  options?: O
  /** Commands the package adds to the command line (`cms <name>`). */
  commands?: readonly PackageCommand[]
  /**
   * Paths outside the REST prefix the plugin answers (a page a browser is
   * sent back to, say). A gateway that sends the package's namespaces to
   * another service does not serve the package: it forwards these paths there.
   */
  pages?: readonly string[]
  /**
   * The plugin or theme slugs (as the package registry installs them) this
   * package is, for activation: while one is inactive, the namespaces it
   * names answer `404 rest_no_route` and leave the index and OpenAPI, in
   * every process, without a restart. None: always served.
   */
  activation?: readonly SitePackage[]
  /**
   * Whether its `contribute` calls `api.decidesActivation` (the registry):
   * it is then registered in every process where a package declaring
   * `activation` is, so each process honours the stored activation state.
   */
  decidesActivation?: boolean
  /**
   * The lifecycle-event listeners the package runs where it serves, by
   * name (`analyse-created: 'post.created'`); `serve` gives each its
   * function with `api.on(name, fn)`. Known to every process, so no
   * process prunes an event one of them has not had.
   */
  listeners?: Readonly<Record<string, LifecycleTopic>>
  /**
   * What the package adds to the core, in every process of the deployment
   * (see the top of this file). What it answers is handed to `serve`.
   */
  contribute?: (api: ContributionApi, options: Static<O>) => C | Promise<C>
  /** Its routes, listeners, background work and Fastify hooks, where the package serves. */
  serve?: (api: PackageApi, options: Static<O>, app: FastifyInstance, contributed: C) => void | Promise<void>
}

/**
 * Makes a package: a Fastify plugin (`fastify-plugin`, with its name and
 * dependencies, so Fastify refuses to register it before them) whose
 * options are checked when it registers.
 */
export function definePackage<O extends TSchema, C = void> (def: PackageDefinition<O, C>): CmsPackage {
  const dependencies = def.dependencies ?? []
  const listeners = def.listeners ?? {}
  const plugin: FastifyPluginAsync<PackagePluginOptions> = async (app, opts) => {
    const platform = opts.platform
    if (!(platform instanceof Platform)) throw new TypeError(`${def.name}: registered without a platform`)
    let options: unknown = opts.options ?? {}
    if (def.options !== undefined) {
      options = Value.Default(def.options, structuredClone(options))
      const first = Value.Errors(def.options, options).First()
      if (first !== undefined) throw new TypeError(`${def.name}: invalid option ${first.path === '' ? '(root)' : first.path}: ${first.message}`)
    }
    // Registers the package (and declares its listeners) whether or not it contributes anything.
    const contributing = platform.contributionApiFor(def.name, dependencies, listeners, { namespaces: def.namespaces, activation: def.activation ?? [], decides: def.decidesActivation === true })
    const contributed = await def.contribute?.(contributing, options as Static<O>) as C
    if (opts.serve === false) return
    const attached = new Set<string>()
    await def.serve?.(platform.serveApiFor(def.name, dependencies, listeners, attached), options as Static<O>, app, contributed)
    const missing = Object.keys(listeners).filter((l) => !attached.has(l))
    if (missing.length > 0) throw new Error(`${def.name} declares the listeners ${missing.join(', ')} but its serve gives them no function (api.on)`)
  }
  return {
    name: def.name,
    dependencies,
    namespaces: def.namespaces,
    commands: def.commands ?? [],
    pages: def.pages ?? [],
    activation: def.activation ?? [],
    decidesActivation: def.decidesActivation === true,
    plugin: fp(plugin, { name: def.name, dependencies: [...dependencies], fastify: '5.x' })
  }
}

interface NamespaceEntry { owner: string, build: (options: Record<string, unknown>) => readonly RouteInput[] }

/** One deployment's registry of what its packages declared. */
export class Platform {
  private readonly declared = new Map<string, NamespaceEntry>()
  private readonly outside: Array<() => RouteDecl[]> = []
  private readonly sets: MigrationSet[] = []
  private readonly jobs: Array<{ owner: string, name: string, start: BackgroundStart }> = []
  private readonly registered: Array<{ name: string, dependencies: readonly string[] }> = []
  private readonly provided = new Map<string, { owner: string, value: unknown }>()
  /** Namespace -> the site packages that must be active for it to be served. */
  private readonly switches = new Map<string, Array<{ type: SitePackage['type'], slug: string }>>()
  /** Package name -> the site packages that must be active for its meta and fields to be shown. */
  private readonly contributionSwitches = new Map<string, Array<{ type: SitePackage['type'], slug: string }>>()
  private reader: { owner: string, read: ActivationReader } | undefined
  /** The last off set, with the deciding package's answer it was derived from. */
  private lastOff: { from: unknown, off: ReadonlySet<string> } | undefined
  private built = false

  constructor (
    readonly services: Services,
    /** The namespaces served here, in the order of the index. */
    readonly served: readonly string[],
    /** Per-namespace options of the profile. */
    private readonly namespaceOptions: Record<string, Record<string, unknown>> = {},
    /** The served namespaces built here (default all); the others are proxied to another service. */
    private readonly local: readonly string[] = served
  ) {}

  /** What both parts of package `name` are handed. */
  private baseFor (name: string, dependencies: readonly string[]): PackageBase {
    return {
      name,
      services: this.services,
      serves: (ns) => this.local.includes(ns),
      exposes: (ns) => this.served.includes(ns),
      upstream: (upstream) => this.services.upstreams.get(upstream),
      option: (option, schema, opts) => this.services.options.handle(this.services.options.declare(name, option, schema, opts.default, opts.description)),
      content: this.services.content,
      contentDir: this.services.settings.contentDir,
      resolveContent: async (path) => await resolveInside(this.services.settings.contentDir, path),
      secrets: packageSecrets(() => this.services.store, name),
      optional: <T>(key: { name: string }) => (): T | undefined => this.provided.get(key.name)?.value as T | undefined,
      require: <T>(key: { name: string }): T => {
        const found = this.provided.get(key.name)
        // Only a dependency's services: it is registered first, and the dependency is declared.
        if (found === undefined || !dependencies.includes(found.owner)) {
          throw new Error(`${name} requires the service ${key.name}, which none of its dependencies (${dependencies.join(', ') || 'none'}) provides`)
        }
        return found.value as T
      },
      provide: (key, value) => {
        const known = this.provided.get(key.name)
        if (known !== undefined) throw new Error(`the service ${key.name} is provided by ${known.owner} and ${name}`)
        this.provided.set(key.name, { owner: name, value })
      }
    }
  }

  /**
   * @internal The API handed to one package's `contribute`; declares its
   * listeners (run only where it serves, see `serveApiFor`).
   */
  contributionApiFor (name: string, dependencies: readonly string[] = [], listeners: Readonly<Record<string, LifecycleTopic>> = {}, declared: { namespaces: readonly string[], activation: readonly SitePackage[], decides?: boolean } = { namespaces: [], activation: [] }): ContributionApi {
    if (this.built) throw new Error(`${name} registered after the app was built`)
    if (this.registered.some((p) => p.name === name)) throw new Error(`${name} is registered twice`)
    this.registered.push({ name, dependencies })
    for (const site of declared.activation) {
      for (const ns of site.namespaces ?? declared.namespaces) {
        if (!declared.namespaces.includes(ns)) throw new Error(`${name}: activation names ${ns}, which it does not serve`)
        this.switches.set(ns, [...this.switches.get(ns) ?? [], { type: site.type, slug: site.slug }])
      }
      if (site.contributions ?? site.namespaces === undefined) {
        this.contributionSwitches.set(name, [...this.contributionSwitches.get(name) ?? [], { type: site.type, slug: site.slug }])
      }
    }
    for (const [listener, topic] of Object.entries(listeners)) this.services.events.declare(name, topic, listener)
    return {
      ...this.baseFor(name, dependencies),
      migrations: (folder) => { this.sets.push({ name, folder, dependsOn: [] }) },
      registerMeta: (objectType, key, schema, opts = {}) => {
        const registry = objectType === 'user' ? this.services.userMeta : objectType === 'comment' ? this.services.commentMeta : this.services.meta
        registry.register(objectType, key, schema, { ...opts, owner: name })
      },
      registerField: (objectType, field, def) => { this.services.fields.register(objectType, field, def as FieldDefinition, name) },
      postType: (def) => { this.services.types.registerPostType(def) },
      taxonomy: (def) => { this.services.types.registerTaxonomy(def) },
      decidesActivation: (read) => {
        if (!declared.decides) throw new Error(`${name} decides activation without declaring it (definePackage({ decidesActivation: true }))`)
        if (this.reader !== undefined) throw new Error(`activation is decided by ${this.reader.owner} and ${name}`)
        this.reader = { owner: name, read }
        // What follows activation outside the kernel (a caller's capabilities, the listeners) asks the same set.
        this.services.activation.decideBy(async (validity) => await this.offNow(validity))
      },
      capability: (capability, grantedTo) => {
        this.services.roles.declare(capability, name)
        // Granted in the package's name: while its contributions are off, the grant is too (RoleRegistry.visible).
        for (const role of grantedTo) this.services.roles.grant(role, [capability], name)
      }
    }
  }

  /** @internal The API handed to one package's `serve`; `attached` collects the listeners given their function. */
  serveApiFor (name: string, dependencies: readonly string[], listeners: Readonly<Record<string, LifecycleTopic>>, attached: Set<string>): PackageApi {
    return {
      ...this.baseFor(name, dependencies),
      namespace: (ns, build) => {
        const known = this.declared.get(ns)
        if (known !== undefined) throw new Error(`namespace ${ns} is declared by ${known.owner} and ${name}`)
        this.declared.set(ns, { owner: name, build })
      },
      routes: (build) => { this.outside.push(build) },
      background: (job, start) => { this.jobs.push({ owner: name, name: job, start }) },
      on: (listener, handler) => {
        if (listeners[listener] === undefined) throw new Error(`${name}: the listener ${listener} is not declared (definePackage({ listeners: { '${listener}': topic } }))`)
        if (attached.has(listener)) throw new Error(`${name}: the listener ${listener} is given twice`)
        attached.add(listener)
        this.services.events.listen(name, listener, handler)
      }
    }
  }

  /** The migrations of the registered packages, each after those of the packages it depends on. */
  migrationSets (): MigrationSet[] {
    const owners = new Set(this.sets.map((s) => s.name))
    return this.sets.map((s) => {
      const deps = this.registered.find((p) => p.name === s.name)?.dependencies ?? []
      return { ...s, dependsOn: deps.filter((d) => owners.has(d)) }
    })
  }

  /** Names of the registered packages, in registration order. */
  packages (): string[] { return this.registered.map((p) => p.name) }

  /** A service a registered package provided (for tools that compose packages: the command line), or undefined. */
  service<T> (key: ServiceKey<T>): T | undefined {
    return this.provided.get(key.name)?.value as T | undefined
  }

  /**
   * The served namespaces with their routes, in the profile's order; a
   * served namespace no package declares answers its root route only.
   * Ends registration: meta and capabilities are final from here on.
   */
  namespaces (): NamespaceDecl[] {
    this.built = true
    this.services.meta.seal()
    this.services.userMeta.seal()
    this.services.commentMeta.seal()
    this.services.fields.seal()
    return this.served.map((ns) => {
      const entry = this.local.includes(ns) ? this.declared.get(ns) : undefined
      return defineNamespace(ns, entry === undefined ? [] : entry.build(this.namespaceOptions[ns] ?? {}))
    })
  }

  /** Routes outside any namespace. */
  routes (): RouteDecl[] { return this.outside.flatMap((build) => build()) }

  /**
   * The kernel's `activation`: the namespaces a site package's activation
   * switches (built here or served by another process: a remote one leaves
   * the index and answers 404 at this gateway too), and the set off now.
   * Undefined when nothing can be off.
   */
  activation (): KernelOptions['activation'] {
    if (this.reader === undefined || (this.switchable().length === 0 && this.contributionSwitches.size === 0)) return undefined
    return { namespaces: this.switchable(), off: async (validity) => await this.offNow(validity) }
  }

  /** The served namespaces (local or remote) a site package's activation switches. */
  private switchable (): string[] {
    return [...this.switches.keys()].filter((ns) => this.served.includes(ns))
  }

  /**
   * The set off now, derived from the deciding package's answer (a new set
   * only when that answer is a new one: it changes only after a commit). It
   * names the switched namespaces off and the packages whose contributions
   * are off (their meta and fields: `visible(off)` of the registries, the
   * schemas' `CONTRIBUTED_BY`; their capabilities and listeners), in every
   * process, served here or not.
   */
  private async offNow (validity: () => Promise<string | undefined>): Promise<ReadonlySet<string>> {
    const isActive = await this.reader!.read(validity)
    if (this.lastOff?.from !== isActive) {
      const inactive = (sites: ReadonlyArray<{ type: SitePackage['type'], slug: string }>): boolean => sites.some((p) => !isActive(p.type, p.slug))
      const off = new Set([
        ...this.switchable().filter((ns) => inactive(this.switches.get(ns)!)),
        ...[...this.contributionSwitches].filter(([, sites]) => inactive(sites)).map(([owner]) => owner)
      ])
      this.lastOff = { from: isActive, off }
    }
    return this.lastOff.off
  }

  /** Starts the background work of every package; returns what stops it all. */
  startBackground (): () => Promise<void> {
    const stops = this.jobs.map((job) => job.start())
    return async () => {
      for (const stop of stops.reverse()) await stop()
    }
  }
}

/**
 * The pages (`definePackage({ pages })`) of the packages serving each
 * namespace another service serves, for the kernel's `remotePages`: they
 * are forwarded there with the namespace.
 */
export function remotePagesOf (catalog: readonly CmsPackage[], remote: Readonly<Record<string, string>>): Record<string, string[]> {
  return Object.fromEntries(Object.keys(remote).map((ns) => [ns, catalog.filter((p) => p.namespaces.includes(ns)).flatMap((p) => p.pages)]))
}

/**
 * The packages to register for a set of served namespaces: those serving
 * one of them, the `always` ones, and everything they depend on, each after
 * its dependencies. A dependency missing from the catalog is an error.
 */
function packagesFor (catalog: readonly CmsPackage[], served: readonly string[], always: readonly string[] = []): CmsPackage[] {
  const byName = new Map(catalog.map((p) => [p.name, p]))
  const out: CmsPackage[] = []
  const seen = new Set<string>()
  const visit = (pkg: CmsPackage, path: string[]): void => {
    if (seen.has(pkg.name)) return
    if (path.includes(pkg.name)) throw new Error(`packages depend on each other in a cycle: ${[...path, pkg.name].join(' -> ')}`)
    for (const dep of pkg.dependencies) {
      const target = byName.get(dep)
      if (target === undefined) throw new Error(`${pkg.name} depends on ${dep}, which is not installed`)
      visit(target, [...path, pkg.name])
    }
    seen.add(pkg.name)
    out.push(pkg)
  }
  for (const pkg of catalog) {
    if (always.includes(pkg.name) || pkg.namespaces.some((ns) => served.includes(ns))) visit(pkg, [])
  }
  // Activation is stored data: where a package it switches registers, the package reading it does too
  // (a process without it would serve what is deactivated).
  if (out.some((p) => p.activation.length > 0)) {
    for (const pkg of catalog) if (pkg.decidesActivation) visit(pkg, [])
  }
  return out
}

/**
 * Registers the packages of a deployment whose profile names `namespaces`:
 * every package serving one of them (with `always` and the dependencies)
 * contributes to the core in this process; those the `local` namespaces
 * need, and `always`, serve here too (the others' routes run in another
 * process, whose pages and namespaces the kernel forwards there).
 */
export async function registerPackages (app: FastifyInstance, platform: Platform, catalog: readonly CmsPackage[], namespaces: readonly string[], local: readonly string[], always: readonly string[] = []): Promise<void> {
  const serving = new Set(packagesFor(catalog, local, always).map((p) => p.name))
  for (const pkg of packagesFor(catalog, namespaces, always)) {
    await app.register(pkg.plugin, { platform, serve: serving.has(pkg.name) })
  }
}

/**
 * What a set of installed packages declares, for tools that serve nothing
 * (the command line's `migrate` and `option`): every package of `catalog`
 * registered on a bare Fastify app, serving every namespace it can (or
 * `served`: a profile's, so `api.serves` answers as in that deployment).
 * `close` closes that app (the store is the caller's).
 */
export async function declaredBy (catalog: readonly CmsPackage[], services: Services, served: readonly string[] = [...new Set(catalog.flatMap((p) => p.namespaces))]): Promise<{ platform: Platform, close: () => Promise<void> }> {
  const platform = new Platform(services, served)
  const app = Fastify({ logger: false })
  try {
    for (const pkg of packagesFor(catalog, served, catalog.map((p) => p.name))) await app.register(pkg.plugin, { platform })
  } catch (err) {
    await app.close()
    throw err
  }
  return { platform, close: async () => { await app.close() } }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** What the composed packages declared (set by the gateway): their packages, namespaces, migrations. */
    platform: Platform
  }
}
