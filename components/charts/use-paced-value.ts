"use client";

import { useEffect, useState } from "react";
import { flushSync } from "react-dom";

/**
 * One chart update per macrotask. A recharts chart re-renders in a cascade (its store dispatches from
 * effects, each a synchronous re-render), about 15–25 ms on a 2-core machine; the job page has three,
 * and with the rank views their 1 Hz updates landed in one task well over the 50 ms long-task budget.
 * Here each chart's new data is applied in its own setTimeout task with flushSync, so the whole cascade
 * of one chart runs there and nothing else: the browser gets to paint and handle input in between.
 */
type Job = { run: () => void };
const queue: Job[] = [];
let scheduled = false;

function pump() {
  scheduled = false;
  queue.shift()?.run();
  if (queue.length > 0) schedule();
}

function schedule() {
  if (scheduled) return;
  scheduled = true;
  setTimeout(pump, 0);
}

/**
 * `value`, applied to this component after the current update has painted, one component per task;
 * `undefined` until the first one lands. Mounting is paced too: the page's first render (topology, table)
 * is not held up by chart mounts, which each cost several times an update. Callers render a placeholder
 * of the chart's size meanwhile, so nothing shifts.
 */
export function usePacedValue<T>(value: T): T | undefined {
  const [shown, setShown] = useState<T | undefined>(undefined);
  useEffect(() => {
    if (Object.is(shown, value)) return;
    const job: Job = { run: () => flushSync(() => setShown(() => value)) };
    queue.push(job);
    schedule();
    return () => {
      const at = queue.indexOf(job);
      if (at >= 0) queue.splice(at, 1);
    };
  }, [value, shown]);
  return shown;
}
