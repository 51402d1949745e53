/**
 * Shared by the benchmarks in scripts/bench/: the CPU time a server process has used, from
 * Linux /proc (proc(5), https://man7.org/linux/man-pages/man5/proc_pid_stat.5.html). Unlike
 * latency or req/s, CPU time per request hardly depends on what else the machine is running, so
 * figures compare fairly on a busy machine.
 *
 * @module scripts/bench/support/processCpu
 */
import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time (user + system) a process and its child processes have used so far, in ms, from
 * /proc/<pid>/stat (fields 14 and 15, in clock ticks of 10 ms); NaN where /proc is missing.
 */
export function cpuTimeMs(pid: number | undefined): number {
  const own = statOf(pid);
  if (!own) return Number.NaN;
  // A service with WEB_CONCURRENCY > 1 serves from the primary's child processes.
  let total = own.cpuMs;
  for (const entry of readdirSync('/proc')) {
    const child = /^\d+$/.test(entry) ? statOf(Number(entry)) : undefined;
    if (child && child.ppid === pid) total += child.cpuMs;
  }
  return total;
}

/** A process's parent and CPU time (user + system, ms) from /proc/<pid>/stat; undefined when unreadable. */
function statOf(pid: number | undefined): { ppid: number; cpuMs: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), cpuMs: (Number(fields[11]) + Number(fields[12])) * 10 };
  } catch {
    return undefined;
  }
}

/**
 * CPU time one process's threads have run so far, in ms with ns resolution, from the first field
 * of /proc/<pid>/task/<tid>/schedstat (https://docs.kernel.org/scheduler/sched-stats.html);
 * {@link cpuTimeMs} (10 ms ticks, child processes included) where schedstat is missing. Threads
 * that ended are left out: read it around a run of requests, not across a process's start.
 */
export function threadCpuTimeMs(pid: number): number {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // the thread ended meanwhile
      }
    }
    return ns / 1e6;
  } catch {
    return cpuTimeMs(pid);
  }
}
