import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** A process's CPU time and memory from /proc (Linux): utime+stime, VmRSS and VmHWM (its peak RSS). */
export type ProcSample = { at: number; cpuS: number; rssMb: number; hwmMb: number };

let ticksPerSecond: number | null = null;

function clockTicks(): number {
  if (ticksPerSecond === null) {
    const text = execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim();
    ticksPerSecond = Number(text) > 0 ? Number(text) : 100;
  }
  return ticksPerSecond;
}

const kbField = (status: string, name: string): number => {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
};

/** null once the process is gone. */
export function sampleProc(pid: number): ProcSample | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after "(comm)", which may itself contain spaces: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return {
      at: Date.now(),
      cpuS: ticks / clockTicks(),
      rssMb: kbField(status, "VmRSS"),
      hwmMb: kbField(status, "VmHWM"),
    };
  } catch {
    return null;
  }
}

/**
 * Processes taken as one (bench:k8s's stand-in agents, spread over several): CPU time, RSS and VmHWM
 * summed, at the latest sample's time; null when there is none. The summed VmHWM is at least the peak of the
 * sum (each process's peak may come at a different time).
 */
export function sumSamples(samples: (ProcSample | null)[]): ProcSample | null {
  const present = samples.filter((sample): sample is ProcSample => sample !== null);
  if (present.length === 0) return null;
  return present.reduce((sum, sample) => ({
    at: Math.max(sum.at, sample.at),
    cpuS: sum.cpuS + sample.cpuS,
    rssMb: sum.rssMb + sample.rssMb,
    hwmMb: sum.hwmMb + sample.hwmMb,
  }));
}

/**
 * Samples processes every `everyMs` as one (sumSamples), keeping the highest summed RSS seen (VmHWM is the
 * kernel's exact peak of each). A process that is gone counts with its last sample: its CPU time stays in
 * the sum.
 */
export function watchProcs(pids: number[], everyMs = 500) {
  const lasts = pids.map((pid) => sampleProc(pid));
  /** null once every process is gone. */
  const take = (): ProcSample | null => {
    let fresh = false;
    for (const [index, pid] of pids.entries()) {
      const sample = sampleProc(pid);
      if (sample) lasts[index] = sample;
      fresh ||= sample !== null;
    }
    return fresh ? sumSamples(lasts) : null;
  };
  let last = sumSamples(lasts);
  let peakRssMb = last?.rssMb ?? 0;
  const samples: ProcSample[] = last ? [last] : [];
  const timer = setInterval(() => {
    const sample = take();
    if (!sample) return;
    last = sample;
    samples.push(sample);
    peakRssMb = Math.max(peakRssMb, sample.rssMb);
  }, everyMs);
  timer.unref();
  return {
    /** A fresh sample (or the last one, when the processes are gone). */
    now(): ProcSample | null {
      const sample = take();
      if (sample) {
        last = sample;
        peakRssMb = Math.max(peakRssMb, sample.rssMb);
      }
      return last;
    },
    peakRssMb: () => peakRssMb,
    /** Every sample taken so far. */
    samples: () => samples,
    stop: () => clearInterval(timer),
  };
}

/** Samples one process every `everyMs`, keeping the highest RSS seen (VmHWM is the kernel's exact peak). */
export const watchProc = (pid: number, everyMs = 500) => watchProcs([pid], everyMs);

export type ProcWatch = ReturnType<typeof watchProcs>;
