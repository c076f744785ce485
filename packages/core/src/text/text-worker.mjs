// A worker thread of the text pool (text-pool.ts): the tasks of
// text-tasks. Plain JavaScript so the thread starts without a TypeScript
// loader in the built image (dist/ holds text-tasks.js beside this file);
// in a checkout, where the process runs through tsx and worker threads do
// not inherit its loader, the TypeScript source is loaded through tsx's API.
// Inputs and outcomes carry their long strings as bytes (moved-strings.ts):
// restored here, and the outcome's bytes moved back (piscina's transferable).
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { move, transferableSymbol, valueSymbol } from 'piscina'

const load = async (name) => {
  const source = new URL(`./${name}.ts`, import.meta.url)
  return existsSync(fileURLToPath(source))
    ? await (await import('tsx/esm/api')).tsImport(source.href, import.meta.url)
    : await import(`./${name}.js`)
}
const tasks = await load('text-tasks')
const { carry, restore } = await load('moved-strings')

const task = (run) => async (carried) => {
  const { carried: outcome, transfer } = await carry(run(await restore(carried)))
  return transfer.length === 0 ? outcome : move({ [transferableSymbol]: transfer, [valueSymbol]: outcome })
}

export const filterOne = task(tasks.filterOne)
export const filterUtf8 = task(tasks.filterUtf8)
export const filterMany = task(tasks.filterMany)
export const filterJson = task(tasks.filterJson)
export const renderContent = task(tasks.renderContent)
export const renderExcerpt = task(tasks.renderExcerpt)
export const renderTitle = task(tasks.renderTitle)
export const renderComment = task(tasks.renderComment)
export const textOf = task(tasks.textOf)
export const linksOf = task(tasks.linksOf)
export const slugOf = task(tasks.slugOf)
export const jsonOf = task(tasks.jsonOf)
export const utf8Of = task(tasks.utf8Of)
export const sameWhitespace = task(tasks.sameWhitespace)
