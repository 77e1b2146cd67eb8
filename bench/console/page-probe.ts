/**
 * Runs in the page before any of its scripts (Playwright's addInitScript): records long tasks, the moment
 * the job page shows all its ranks, the moment the selected rank's panel appears, and how often the rank
 * table is re-rendered by live updates. Read back as `window.__bench`.
 */
export type PageProbe = {
  longTasks: { start: number; duration: number }[];
  dataAt: number | null;
  panelAt: number | null;
  tableUpdates: number[];
};

export function installProbe(expectedRanks: number): void {
  const probe: PageProbe = { longTasks: [], dataAt: null, panelAt: null, tableUpdates: [] };
  (window as unknown as { __bench: PageProbe }).__bench = probe;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      probe.longTasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: "longtask", buffered: true });
  let table: Element | null = null;
  const tableObserver = new MutationObserver(() => probe.tableUpdates.push(performance.now()));
  new MutationObserver(() => {
    const healthy = document.querySelector('[data-testid="ranks-healthy"]');
    if (probe.dataAt === null && healthy?.textContent?.endsWith(`/${expectedRanks}`))
      probe.dataAt = performance.now();
    if (probe.panelAt === null && document.querySelector('[data-testid="selected-rank-health"]'))
      probe.panelAt = performance.now();
    const body = document.querySelector("main table tbody");
    if (body && body !== table) {
      table = body;
      tableObserver.disconnect();
      tableObserver.observe(body, { subtree: true, characterData: true, childList: true });
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
}
