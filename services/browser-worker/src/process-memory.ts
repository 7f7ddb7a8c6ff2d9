import fs from 'node:fs';

/** Every live process of this machine with its parent, read from Linux /proc. */
function parentsByPid(): Map<number, { ppid: number; exe: string }> {
  const table = new Map<number, { ppid: number; exe: string }>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid …"; comm may hold spaces and parentheses.
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z') continue;
      let exe = '';
      try {
        exe = fs.readlinkSync(`/proc/${entry}/exe`);
      } catch {
        // another user's process
      }
      table.set(Number(entry), { ppid: Number(ppid), exe });
    } catch {
      // gone between the listing and the read
    }
  }
  return table;
}

/** Child processes of `parent` whose executable's file name is `name` (Chromium as Playwright started it). */
export function childProcessesNamed(parent: number, name: string): number[] {
  const out: number[] = [];
  for (const [pid, p] of parentsByPid()) if (p.ppid === parent && p.exe.split('/').pop() === name) out.push(pid);
  return out;
}

/** `roots` and every process descended from them. */
export function processTree(roots: number[]): number[] {
  const table = parentsByPid();
  const tree = new Set(roots.filter((pid) => table.has(pid)));
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, p] of table) {
      if (!tree.has(pid) && tree.has(p.ppid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  return [...tree];
}

function fieldKb(file: string, field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(file, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

export interface ProcessMemory {
  /** Sum of resident set sizes: counts pages the processes share once per process. */
  rssMb: number;
  /** Sum of proportional set sizes: shared pages split between their users, so the sum is the group's real share. */
  pssMb: number;
}

export function memoryOf(pids: number[]): ProcessMemory {
  let rss = 0;
  let pss = 0;
  for (const pid of pids) {
    rss += fieldKb(`/proc/${pid}/status`, 'VmRSS');
    pss += fieldKb(`/proc/${pid}/smaps_rollup`, 'Pss');
  }
  return { rssMb: Math.round(rss / 1024), pssMb: Math.round(pss / 1024) };
}
