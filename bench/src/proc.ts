/**
 * Readings from /proc (Linux): a process's resident memory and CPU time, the
 * CPU time of a server and the processes it started (PostgreSQL's backends),
 * and the machine's idle time. Each answers 0 where it cannot read.
 */
import { readdirSync, readFileSync } from 'node:fs'

/** A memory line of a process's /proc status (VmRSS, VmHWM...), in bytes; 0 once it has gone. */
function statusBytes (pid: number | undefined, field: string): number {
  if (pid === undefined) return 0
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m === null ? 0 : Number(m[1]) * 1024
  } catch {
    return 0
  }
}

/** Resident memory of a process, in bytes. */
export function rssOf (pid: number | undefined): number {
  return statusBytes(pid, 'VmRSS')
}

/** The peak resident memory of a process so far, in bytes. */
export function peakRssOf (pid: number | undefined): number {
  return statusBytes(pid, 'VmHWM')
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces): field 3 (state) first. */
function statOf (pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return undefined
  }
}

/** utime + stime of a process, in seconds (clock ticks of 1/100 s on Linux). */
export function cpuOf (pid: number | undefined): number {
  const fields = pid === undefined ? undefined : statOf(pid)
  return fields === undefined ? 0 : (Number(fields[11]) + Number(fields[12])) / 100
}

/**
 * CPU time of a server process and all it started, in seconds: for
 * PostgreSQL, the postmaster, its backends and workers still running, and
 * those that have ended (counted in the postmaster's own "children" times
 * once it has waited for them, as it does for every backend and worker).
 */
export function treeCpuOf (pid: number): number {
  let total = 0
  // A child waited for while /proc is read would be counted twice or not at
  // all (pooled connections closing at once make it likely): read again then.
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = statOf(pid)
    if (before === undefined) return 0
    let children = 0
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue
      const fields = statOf(Number(entry))
      // Field 4 is the parent's pid; utime and stime are fields 14 and 15.
      if (fields !== undefined && Number(fields[1]) === pid) children += Number(fields[11]) + Number(fields[12])
    }
    const after = statOf(pid)
    if (after === undefined) return 0
    // utime, stime, cutime and cstime are fields 14 to 17.
    total = (Number(after[11]) + Number(after[12]) + Number(after[13]) + Number(after[14]) + children) / 100
    if (after[13] === before[13] && after[14] === before[14]) break
  }
  return total
}

/** The machine's CPU time so far, all cores: idle (with I/O wait) and in all, in clock ticks. */
export function machineTicks (): { idle: number, total: number } {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
    // user nice system idle iowait irq softirq steal (guest time is inside user).
    const total = cpu.slice(0, 8).reduce((a, b) => a + b, 0)
    return { idle: cpu[3]! + cpu[4]!, total }
  } catch {
    return { idle: 0, total: 0 }
  }
}
