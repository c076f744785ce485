/**
 * Reads a trace of the stall harness (`STALL_TRACE=/tmp/t bench/reliability/run.sh stall`
 * writes /tmp/t.A.json and /tmp/t.B.json: harness/loop-watch.ts) and names
 * what held the event loop: the long macrotasks by the main thread's CPU
 * time, each with the functions its profile samples were in (self time) and
 * the deepest frames of the workspace's code (where the work was asked for).
 *
 *   node --import tsx test/stall-trace.run.ts /tmp/t.A.json [TOP]
 */
import { readFileSync } from 'node:fs'
import type { LongTask } from './harness/loop-watch.js'

interface Node { id: number, callFrame: { functionName: string, url: string, lineNumber: number }, parent?: number, children?: number[] }
interface Profile { nodes: Node[], startTime: number, samples: number[], timeDeltas: number[] }

const [file, topArg] = process.argv.slice(2)
if (file === undefined) throw new Error('usage: stall-trace.run.ts TRACE.json [TOP]')
const TOP = Number(topArg ?? 15)
const { tasks, gcs, profile } = JSON.parse(readFileSync(file, 'utf8')) as { tasks: LongTask[], gcs: number, profile: Profile }

const byId = new Map(profile.nodes.map((n) => [n.id, n]))
for (const n of profile.nodes) for (const c of n.children ?? []) byId.get(c)!.parent = n.id
const short = (n: Node): string => {
  const url = n.callFrame.url.replace(/^.*\/(packages|apps|node_modules)\//, '$1/').replace(/^node:/, '')
  return `${n.callFrame.functionName || '(anonymous)'} ${url}:${n.callFrame.lineNumber + 1}`
}
const ours = (n: Node): boolean => /\/(packages|apps)\/[^/]+\/(src|dist)\//.test(n.callFrame.url) && !n.callFrame.url.includes('/node_modules/')

const STACK_FRAMES = Number(process.env.STALL_TRACE_FRAMES ?? 8)
/** A sample's stack: its leaf, then the frames that have a name or a file, up to STACK_FRAMES. */
function stackOf (leaf: Node): string {
  const frames = [short(leaf)]
  for (let n = leaf; n.parent !== undefined && frames.length < STACK_FRAMES;) {
    n = byId.get(n.parent)!
    if (n.callFrame.url === '' && n.callFrame.functionName === '') continue
    if (n.callFrame.functionName === '(root)') break
    frames.push(short(n))
  }
  return frames.join(' < ')
}

// Sample times: startTime plus the running sum of the deltas.
const times: number[] = []
let at = profile.startTime
for (const d of profile.timeDeltas) { at += d; times.push(at) }

const count = <K>(m: Map<K, number>, k: K, by = 1): void => { m.set(k, (m.get(k) ?? 0) + by) }
const top = (m: Map<string, number>, n: number, total: number): string =>
  [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `      ${(100 * v / total).toFixed(0).padStart(3)}%  ${k}`).join('\n')

const sorted = [...tasks].sort((a, b) => b.cpuMs - a.cpuMs)
const cpu = tasks.map((t) => t.cpuMs).sort((a, b) => b - a)
process.stdout.write(`${tasks.length} macrotasks over their threshold; main-thread CPU of the longest: ${cpu.slice(0, 5).map((c) => c.toFixed(1)).join(', ')} ms; ${gcs} GC events in all\n`)
/** Every long task's samples, summed by the deepest workspace frame: what asks for the blocking work overall. */
const overall = new Map<string, number>()
let overallSamples = 0
let lo = 0
const tasksInOrder = [...tasks].sort((a, b) => a.startUs - b.startUs)
const samplesOf = new Map<LongTask, number[]>()
for (const t of tasksInOrder) {
  while (lo < times.length && times[lo]! < t.startUs) lo++
  const idx: number[] = []
  for (let i = lo; i < times.length && times[i]! <= t.endUs; i++) idx.push(i)
  samplesOf.set(t, idx)
}
for (const [i, t] of sorted.entries()) {
  const self = new Map<string, number>()
  const mine = new Map<string, number>()
  /** The samples' stacks, leaf first, `STACK_FRAMES` deep, workspace and library frames only past the leaf. */
  const stacks = new Map<string, number>()
  const idx = samplesOf.get(t)!
  let busy = 0
  for (const i of idx) {
    let n = byId.get(profile.samples[i]!)!
    if (n.callFrame.functionName === '(idle)') continue
    busy++
    count(self, short(n))
    let deepest = '(no workspace frame)'
    const chain: string[] = []
    for (;;) {
      chain.push(n.callFrame.functionName)
      if (ours(n) && deepest === '(no workspace frame)') deepest = short(n)
      if (n.parent === undefined) break
      n = byId.get(n.parent)!
    }
    count(mine, deepest)
    count(stacks, stackOf(byId.get(profile.samples[i]!)!))
    count(overall, deepest, 1)
    overallSamples++
  }
  if (i >= TOP) continue
  process.stdout.write(`#${i + 1} wall ${t.wallMs.toFixed(1)} ms, main-thread CPU ${t.cpuMs.toFixed(1)} ms, run-queue wait ${t.waitMs.toFixed(1)} ms, GC ${t.gcMs.toFixed(1)} ms; ${busy} busy samples of ${idx.length}\n`)
  process.stdout.write(`    self:\n${top(self, 6, Math.max(1, busy))}\n    deepest workspace frame:\n${top(mine, 4, Math.max(1, busy))}\n`)
  process.stdout.write(`    stacks (leaf first):\n${top(stacks, 3, Math.max(1, busy))}\n`)
}
process.stdout.write(`all long tasks, by deepest workspace frame (${overallSamples} samples):\n${top(overall, 20, Math.max(1, overallSamples))}\n`)
