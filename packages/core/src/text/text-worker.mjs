// A worker thread of the text pool (text-pool.ts): the tasks of
// text-tasks. Plain JavaScript so the thread starts without a TypeScript
// loader in the built image (dist/ holds text-tasks.js beside this file);
// in a checkout, where the process runs through tsx and worker threads do
// not inherit its loader, the TypeScript source is loaded through tsx's API.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const source = new URL('./text-tasks.ts', import.meta.url)
const tasks = existsSync(fileURLToPath(source))
  ? await (await import('tsx/esm/api')).tsImport(source.href, import.meta.url)
  : await import('./text-tasks.js')

export const filterOne = tasks.filterOne
export const filterMany = tasks.filterMany
export const renderContent = tasks.renderContent
export const renderExcerpt = tasks.renderExcerpt
export const renderTitle = tasks.renderTitle
export const renderComment = tasks.renderComment
export const textOf = tasks.textOf
export const linksOf = tasks.linksOf
export const slugOf = tasks.slugOf
