/**
 * Title and description templates (the real product's "search appearance"
 * settings): one per kind of page, with variables such as `%%title%%
 * %%sep%% %%sitename%%`. The stored option `seo_titles` overrides the
 * defaults key by key (`title-post`, `metadesc-tax-category`,
 * `separator`...); the defaults are the real product's.
 */
import { Type } from '@sinclair/typebox'

/** The real product's default templates, by its keys. */
export const DEFAULT_TEMPLATES: Readonly<Record<string, string>> = {
  separator: '-',
  'title-home': '%%sitename%% %%page%% %%sep%% %%sitedesc%%',
  'title-post': '%%title%% %%page%% %%sep%% %%sitename%%',
  'title-page': '%%title%% %%page%% %%sep%% %%sitename%%',
  'title-author': '%%name%%, Author at %%sitename%% %%page%%',
  'title-archive': '%%date%% %%page%% %%sep%% %%sitename%%',
  'title-search': 'You searched for %%searchphrase%% %%page%% %%sep%% %%sitename%%',
  'title-404': 'Page not found %%sep%% %%sitename%%',
  'title-tax-category': '%%term_title%% Archives %%page%% %%sep%% %%sitename%%',
  'title-tax-post_tag': '%%term_title%% Archives %%page%% %%sep%% %%sitename%%',
  'title-ptarchive': '%%pt_plural%% Archive %%page%% %%sep%% %%sitename%%',
  'metadesc-home': '',
  'metadesc-post': '',
  'metadesc-page': '',
  'metadesc-author': '',
  'metadesc-archive': '',
  'metadesc-tax-category': '',
  'metadesc-tax-post_tag': '',
  'metadesc-ptarchive': ''
}

/** The option's schema: template keys to templates (bounded: the head's work is linear in them). */
export const TEMPLATES_SCHEMA = Type.Record(Type.String({ pattern: '^[a-z0-9_-]{1,60}$' }), Type.String({ maxLength: 1000 }), { maxProperties: 200 })

/** The template stored under `key`, else the default for it, else the default of its family (`title-post` for a custom type). */
export function templateOf (stored: Readonly<Record<string, string>>, key: string, family = ''): string {
  return stored[key] ?? DEFAULT_TEMPLATES[key] ?? (family === '' ? '' : stored[family] ?? DEFAULT_TEMPLATES[family] ?? '')
}

/**
 * Replaces `%%name%%` variables in one pass (linear in the template) with
 * `vars[name]`; a variable without a value (unknown, or nothing to show
 * here, such as `%%page%%` on a first page) becomes empty. Runs of spaces
 * left behind are folded.
 */
export function replaceVariables (template: string, vars: Readonly<Record<string, string>>): string {
  const out = template
    .replace(/%%([a-z0-9_]{1,40})%%/gi, (_m, name: string) => Object.hasOwn(vars, name) ? vars[name]! : '')
    .replace(/\s+/g, ' ')
    .trim()
  // A separator left at either end by an empty variable (`Site -` without a tagline) goes too.
  const sep = vars.sep ?? ''
  if (sep === '') return out
  let start = 0
  let end = out.length
  if (out.startsWith(`${sep} `)) start = sep.length + 1
  if (out.endsWith(` ${sep}`)) end -= sep.length + 1
  return start < end ? out.slice(start, end) : out === sep ? '' : out
}
