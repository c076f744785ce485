/**
 * Readings from /proc (Linux): a process's resident memory and CPU time, the
 * CPU time of a server and the processes it started (PostgreSQL's backends),
 * and the machine's idle time. Each answers 0 where it cannot read.
 */
import { readdirSync, readFileSync } from 'node:fs'

/** Resident memory of a process, in bytes. */
export function rssOf (pid: number | undefined): number {
  if (pid === undefined) return 0
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m === null ? 0 : Number(m[1]) * 1024
  } catch {
    return 0
  }
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
 * CPU time of a process and its children still running, in seconds: for
 * PostgreSQL, the postmaster and its backends (the pool's connections live
 * as long as the gateway, so a run's queries are all counted).
 */
export function treeCpuOf (pid: number): number {
  let total = cpuOf(pid)
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const fields = statOf(Number(entry))
    // Field 4 is the parent's pid.
    if (fields !== undefined && Number(fields[1]) === pid) total += (Number(fields[11]) + Number(fields[12])) / 100
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
