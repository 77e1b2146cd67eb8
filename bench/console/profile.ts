import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "@playwright/test";

/**
 * `--profile DIR`: the page under Chromium's CPU profiler (CDP), to see where its main thread spends its time:
 * one more load on the way to interactive (`load`), and the live updates watched (`updates`). Start it before
 * what is profiled; the returned function stops it and writes `DIR/<name>.cpuprofile` (open it in Chrome's
 * DevTools, Performance panel) and `DIR/<name>-resources.json`, the page's navigation and resource timings
 * (when each script and request started and answered, in ms after navigation). Returns what it wrote.
 */
export async function startProfile(page: Page, dir: string, name: string): Promise<() => Promise<string>> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  await cdp.send("Profiler.start");
  return async () => {
    const { profile } = await cdp.send("Profiler.stop");
    const resources = await page.evaluate(() =>
      [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")].map(
        (entry) => {
          const timing = entry as PerformanceResourceTiming;
          return {
            name: timing.name,
            start: Math.round(timing.startTime),
            firstByte: Math.round(timing.responseStart),
            end: Math.round(timing.responseEnd),
            bytes: timing.transferSize,
          };
        },
      ),
    );
    await mkdir(dir, { recursive: true });
    const profileFile = path.join(dir, `${name}.cpuprofile`);
    await writeFile(profileFile, JSON.stringify(profile));
    const resourcesFile = path.join(dir, `${name}-resources.json`);
    await writeFile(resourcesFile, JSON.stringify(resources, null, 1));
    return `${profileFile}, ${resourcesFile}`;
  };
}
