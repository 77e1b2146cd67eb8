import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { createLiveHub } from "./hub";

/**
 * The hub's one cache of shared reads (`cached`) is what the job page, the jobs list and the TV views keep
 * their pages in (issue 35 item 4: the job page's own `pageCache` never dropped a page). A key nobody asks
 * for any more must not be held for ever: once past its time it is dropped, so however many jobs were
 * ever watched, the cache holds a bounded number of pages. Live ones are kept. Measured the way it matters:
 * whether the pages can be garbage-collected.
 */

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Lets WeakRefs made in earlier jobs be cleared, then collects twice. */
async function collect() {
  for (let i = 0; i < 2; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    gc();
  }
}

/** A page as big as a job page's rows, and a WeakRef to it that tells whether anything still holds it. */
function pageLoader(refs: Array<WeakRef<object>>, loads: { count: number }) {
  return async () => {
    loads.count += 1;
    const page = { rows: Array.from({ length: 1000 }, (_, i) => ({ rank: i })) };
    refs.push(new WeakRef(page));
    return page;
  };
}

describe("the live hub's cache of shared reads", () => {
  it("holds a bounded number of pages however many keys were ever read, once they are past their time", async () => {
    const hub = createLiveHub();
    const refs: Array<WeakRef<object>> = [];
    const loads = { count: 0 };
    // 1,000 jobs' pages each watched once, briefly (a 1 ms time to live, each read after the last expired).
    for (let job = 0; job < 1000; job += 1) {
      await hub.cached(`jobs.page-read:1:ns/job-${job}`, 1, pageLoader(refs, loads));
      await new Promise((resolve) => setTimeout(resolve, job % 100 === 0 ? 2 : 0));
    }
    expect(loads.count).toBe(1000);
    await collect();
    const held = refs.filter((ref) => ref.deref() !== undefined).length;
    // A cache that never drops would hold all 1,000; the hub sweeps expired reads past a few dozen keys.
    expect(held).toBeLessThan(100);
  });

  it("drops every expired page at its next sweep, and keeps the ones still within their time", async () => {
    const hub = createLiveHub();
    const expired: Array<WeakRef<object>> = [];
    const live: Array<WeakRef<object>> = [];
    const loads = { count: 0 };
    for (let job = 0; job < 100; job += 1) await hub.cached(`old-${job}`, 1, pageLoader(expired, loads));
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (let job = 0; job < 100; job += 1) await hub.cached(`new-${job}`, 60_000, pageLoader(live, loads));
    await collect();
    expect(expired.filter((ref) => ref.deref() !== undefined)).toEqual([]);
    expect(live.filter((ref) => ref.deref() !== undefined)).toHaveLength(100);
    // Those within their time are still shared: asking again reads nothing.
    const before = loads.count;
    for (let job = 0; job < 100; job += 1) await hub.cached(`new-${job}`, 60_000, pageLoader(live, loads));
    expect(loads.count).toBe(before);
  });
});
