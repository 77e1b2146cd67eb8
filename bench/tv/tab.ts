import { type CDPSession, chromium, type Page } from "@playwright/test";
import { CHROMIUM_ARGS, chromiumExecutablePath } from "@/e2e/chromium";

/**
 * One TV tab's memory over a long run: Debian's Chromium opens /tv/<view>?token=… at 1920×1080 as a wall
 * screen would, warms up for a minute, then stays for `minutes` while frames arrive. The JS heap is read after
 * a forced GC (CDP HeapProfiler.collectGarbage, then Runtime.getHeapUsage) at the start of that span, every
 * minute, and at its end; DOM nodes likewise (CDP Memory.getDOMCounters, and the elements in the document).
 * The frames the page receives are counted from CDP's Network events (its EventSource's plain messages).
 */
export type TabSample = { atS: number; heapMb: number; domNodes: number; elements: number; messages: number };

export type TabResult = {
  view: string;
  minutes: number;
  start: TabSample;
  end: TabSample;
  samples: TabSample[];
  heapGrowthMb: number;
  /** SSE messages per second over the measured span. */
  framesPerS: number;
  /** The page showed its "reconnecting" banner at the end (it should not). */
  reconnectingAtEnd: boolean;
};

const WARM_UP_MS = 60_000;
const SAMPLE_EVERY_MS = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function sample(cdp: CDPSession, page: Page, since: number, messages: number): Promise<TabSample> {
  await cdp.send("HeapProfiler.collectGarbage");
  const heap = await cdp.send("Runtime.getHeapUsage");
  const counters = await cdp.send("Memory.getDOMCounters");
  const elements = await page.evaluate(() => document.getElementsByTagName("*").length);
  return {
    atS: Math.round((Date.now() - since) / 1000),
    heapMb: Math.round((heap.usedSize / 2 ** 20) * 100) / 100,
    domNodes: counters.nodes,
    elements,
    messages,
  };
}

export async function measureTab(input: {
  baseUrl: string;
  view: string;
  token: string;
  minutes: number;
  log: (line: string) => void;
  /** Stops the run early (the console died): the tab's figures are then not reported. */
  alive: () => boolean;
  /** Where to save what the tab shows at the end (PNG). */
  screenshotPath?: string;
}): Promise<TabResult> {
  const browser = await chromium.launch({ executablePath: chromiumExecutablePath, args: [...CHROMIUM_ARGS] });
  try {
    const context = await browser.newContext({
      baseURL: input.baseUrl,
      viewport: { width: 1920, height: 1080 },
    });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    let messages = 0;
    await cdp.send("Network.enable", { maxTotalBufferSize: 0, maxResourceBufferSize: 0 });
    // Frames only: tRPC's "connected" and "ping" events are named, a frame is a plain message.
    cdp.on("Network.eventSourceMessageReceived", (event) => {
      if (event.eventName === "message" || event.eventName === "") messages += 1;
    });
    // A wall screen's link: the console moves the token into its cookie and drops it from the address.
    await page.goto(`/tv/${input.view}?token=${encodeURIComponent(input.token)}`);
    input.log(`tab: ${page.url()} loaded; warming up for ${WARM_UP_MS / 1000} s`);
    await sleep(WARM_UP_MS);
    const began = Date.now();
    const start = await sample(cdp, page, began, messages);
    input.log(`tab: start heap ${start.heapMb} MB, ${start.domNodes} DOM nodes, ${messages} messages so far`);
    const samples = [start];
    const endAt = began + input.minutes * 60_000;
    while (Date.now() < endAt && input.alive()) {
      await sleep(Math.min(SAMPLE_EVERY_MS, endAt - Date.now()));
      const next = await sample(cdp, page, began, messages);
      samples.push(next);
      input.log(`tab: +${next.atS} s heap ${next.heapMb} MB, ${next.domNodes} DOM nodes`);
    }
    const end = samples.at(-1) as TabSample;
    if (input.screenshotPath) await page.screenshot({ path: input.screenshotPath });
    const reconnectingAtEnd = await page
      .getByText(/reconnecting/i)
      .isVisible()
      .catch(() => false);
    const spanS = Math.max(1, end.atS);
    return {
      view: input.view,
      minutes: input.minutes,
      start,
      end,
      samples,
      heapGrowthMb: Math.round((end.heapMb - start.heapMb) * 100) / 100,
      framesPerS: Math.round(((end.messages - start.messages) / spanS) * 100) / 100,
      reconnectingAtEnd,
    };
  } finally {
    await browser.close();
  }
}
