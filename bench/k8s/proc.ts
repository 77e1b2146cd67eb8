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

/** Samples a process every `everyMs`, keeping the highest RSS seen (VmHWM is the kernel's exact peak). */
export function watchProc(pid: number, everyMs = 500) {
  let last = sampleProc(pid);
  let peakRssMb = last?.rssMb ?? 0;
  const samples: ProcSample[] = last ? [last] : [];
  const timer = setInterval(() => {
    const sample = sampleProc(pid);
    if (!sample) return;
    last = sample;
    samples.push(sample);
    peakRssMb = Math.max(peakRssMb, sample.rssMb);
  }, everyMs);
  timer.unref();
  return {
    /** A fresh sample (or the last one, when the process is gone). */
    now(): ProcSample | null {
      const sample = sampleProc(pid);
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

export type ProcWatch = ReturnType<typeof watchProc>;
