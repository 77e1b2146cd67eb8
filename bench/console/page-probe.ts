/**
 * Runs in the page before any of its scripts (Playwright's addInitScript): records long tasks, the moment
 * the job page shows all its ranks, and how often the rank table is re-rendered by live updates. As soon
 * as all ranks are shown and a rank's row is on screen it clicks that rank from inside the page (a queued
 * task, like a user's click, which runs only when the main thread is free) and records when the rank's
 * panel appears: the page is interactive then. Clicking from inside the page keeps the test driver's
 * round trips out of the figure. Read back as `window.__bench`.
 */
export type PageProbe = {
  longTasks: { start: number; duration: number }[];
  dataAt: number | null;
  clickAt: number | null;
  panelAt: number | null;
  tableUpdates: number[];
};

export function installProbe(expectedRanks: number): void {
  // No named functions in here: the bundler's name helpers do not exist in the page.
  const probe: PageProbe = { longTasks: [], dataAt: null, clickAt: null, panelAt: null, tableUpdates: [] };
  (window as unknown as { __bench: PageProbe }).__bench = probe;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      probe.longTasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: "longtask", buffered: true });
  let table: Element | null = null;
  let clicked = false;
  const tableObserver = new MutationObserver(() => probe.tableUpdates.push(performance.now()));
  // One observer per concern (no helper functions: see above), each callback flat.
  const everything = { subtree: true, childList: true, characterData: true };
  new MutationObserver(() => {
    const shown = document
      .querySelector('[data-testid="ranks-healthy"]')
      ?.textContent?.endsWith(`/${expectedRanks}`);
    if (probe.dataAt === null && shown) probe.dataAt = performance.now();
  }).observe(document, everything);
  new MutationObserver(() => {
    const button = document.querySelector<HTMLButtonElement>('button[aria-label="Select rank 3"]');
    if (probe.dataAt === null || clicked || button === null) return;
    clicked = true;
    setTimeout(() => {
      probe.clickAt = performance.now();
      button.click();
    }, 0);
  }).observe(document, everything);
  new MutationObserver(() => {
    const panel = document.querySelector('[data-testid="selected-rank-health"]') !== null;
    if (probe.panelAt === null && panel) probe.panelAt = performance.now();
  }).observe(document, everything);
  new MutationObserver(() => {
    const body = document.querySelector("main table tbody");
    if (body === null || body === table) return;
    table = body;
    tableObserver.disconnect();
    tableObserver.observe(body, everything);
  }).observe(document, everything);
}
