import { copyFileSync, mkdirSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import type { APIRequestContext, Browser, Page, TestInfo } from "@playwright/test";
import { deleteJob, type JobRef, submitJob } from "./fixtures/governance-job";
import { expectNoSeriousA11yViolations } from "./fixtures/page-checks";
import { expect, test, trpcMutation, trpcQuery } from "./fixtures/trpc";
import { measureScreen } from "./fixtures/tv-screen";

/**
 * The TV dashboards as a wall screen sees them: a share link opened in a fresh browser (no session), every
 * view at 1080p and 4K (screenshots kept as artifacts, and copied to $TV_SHOTS_DIR when set, for a person to
 * look at), axe on each, a view outside the token refused on screen, a revoked token's open stream ended
 * within seconds and its next request refused, and a playlist rotating.
 */
const VISION_JOB = { namespace: "hyperpod-ns-vision", name: "e2e-tv-vision" } as const;
const LLM_JOB = { namespace: "hyperpod-ns-llm-research", name: "e2e-tv-llm" } as const;
const VIEWS = ["cluster", "jobs", "reliability", "incidents"] as const;
type View = (typeof VIEWS)[number];
const TITLES: Record<View, string> = {
  cluster: "Cluster: GPUs by team",
  jobs: "Jobs and goodput",
  reliability: "Faults and recovery, last 24 h",
  incidents: "Current incidents",
};
const SCREENS = [
  { name: "1080p", width: 1920, height: 1080 },
  { name: "4k", width: 3840, height: 2160 },
] as const;

type CreatedToken = { kind: "link"; token: { id: string }; secret: string; link: string };

async function createToken(
  admin: APIRequestContext,
  input: { label: string; views: View[]; teamIds?: string[] },
): Promise<CreatedToken> {
  const response = await trpcMutation(admin, "shareTokens.create", {
    label: input.label,
    views: input.views,
    allTeams: input.teamIds === undefined,
    teamIds: input.teamIds ?? [],
    pairing: false,
  });
  expect(response.status(), await response.text()).toBe(200);
  return ((await response.json()) as { result: { data: { json: CreatedToken } } }).result.data.json;
}

/** A fresh browser (no session) opening the token's link for `view`: the token goes into its cookie. */
async function openAsTv(opts: {
  browser: Browser;
  token: CreatedToken;
  view: View;
  size?: { width: number; height: number };
}): Promise<Page> {
  const context = await opts.browser.newContext({ viewport: opts.size ?? { width: 1920, height: 1080 } });
  const page = await context.newPage();
  await page.goto(`/tv/${opts.view}?token=${opts.token.secret}`);
  await expect(page).toHaveURL(new RegExp(`/tv/${opts.view}$`));
  return page;
}

async function waitForJobsRunning(admin: APIRequestContext, jobs: JobRef[]) {
  await expect
    .poll(
      async () => {
        type Row = {
          namespace: string;
          name: string;
          phase: string;
          ranksHealthy: number;
          ranksTotal: number;
        };
        const rows = await trpcQuery<Row[]>(admin, "jobs.list");
        // Running with every rank healthy (stepping): a rank's process is up, so a fault can be injected.
        return jobs.map((job) => {
          const row = rows.find((r) => r.namespace === job.namespace && r.name === job.name);
          return row && row.ranksTotal > 0 && row.ranksHealthy === row.ranksTotal
            ? row.phase
            : "not all ranks healthy";
        });
      },
      { timeout: 90_000 },
    )
    .toEqual(jobs.map(() => "Running"));
}

/** Nothing scrolls and nothing is cut off: the page fits the screen, and the kiosk frame its content. */
async function expectFitsScreen(page: Page) {
  const fit = await page.evaluate(() => {
    const main = document.querySelector("main");
    const body = main?.children[2] as HTMLElement | undefined;
    return {
      pageScrolls:
        document.documentElement.scrollHeight > window.innerHeight ||
        document.documentElement.scrollWidth > window.innerWidth,
      mainClips: main ? main.scrollHeight > main.clientHeight || main.scrollWidth > main.clientWidth : true,
      bodyClips: body ? body.scrollHeight > body.clientHeight + 1 : false,
    };
  });
  expect(fit).toEqual({ pageScrolls: false, mainClips: false, bodyClips: false });
}

/**
 * No visible text under `minPx` (28 px at 1080p, read from 3 m; twice that at 4K), chart ticks included, and
 * the view's content spans most of the screen rather than a strip at its top.
 */
async function expectReadableAndFilled(page: Page, what: string, minPx: number) {
  const measured = await measureScreen(page, minPx);
  test.info().annotations.push({
    type: "tv-screen",
    description: `${what}: smallest text ${measured.smallest} px, content spans ${Math.round(measured.coverage * 100)} %`,
  });
  expect(measured.small, `${what}: text too small to read from 3 m`).toEqual([]);
  expect(measured.smallest, what).toBeGreaterThanOrEqual(minPx);
  expect(measured.coverage, `${what}: share of the screen its content spans`).toBeGreaterThan(0.7);
}

async function keepScreenshot(page: Page, testInfo: TestInfo, name: string) {
  const file = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path: file });
  await testInfo.attach(name, { path: file, contentType: "image/png" });
  const dir = process.env.TV_SHOTS_DIR;
  if (dir) {
    mkdirSync(dir, { recursive: true });
    copyFileSync(file, path.join(dir, `${name}.png`));
  }
}

/** What each view must show with the two jobs running and one fault recovered. */
const VIEW_CHECKS: Record<View, (page: Page) => Promise<void>> = {
  cluster: async (page) => {
    await expect(page.getByRole("term").filter({ hasText: "Running jobs" })).toBeVisible();
    await expect(page.getByText("Vision", { exact: true })).toBeVisible();
    await expect(page.getByText("LLM Research", { exact: true })).toBeVisible();
  },
  jobs: async (page) => {
    await expect(page.getByRole("cell", { name: VISION_JOB.name })).toBeVisible();
    await expect(page.getByRole("cell", { name: LLM_JOB.name })).toBeVisible();
  },
  reliability: async (page) => {
    await expect(page.getByRole("term").filter({ hasText: "Faults, last 24 h" })).toBeVisible();
    // The first tile is the faults of the last 24 h: the crash injected above is one.
    await expect(page.getByRole("definition").first()).toHaveText(/^[1-9]\d*$/, { timeout: 20_000 });
    await expect(page.getByRole("heading", { name: /Cluster throughput/ })).toBeVisible();
    // Drawn, or said why not: never a broken chart.
    await expect(page.getByTestId("tv-throughput").or(page.getByText("Metrics unavailable"))).toBeVisible();
  },
  incidents: async (page) => {
    await expect(page.getByRole("heading", { name: /Jobs recovering/ })).toBeVisible();
    await expect(page.getByRole("heading", { name: /Nodes unhealthy/ })).toBeVisible();
  },
};

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ playwright, baseURL }) => {
  const request = await playwright.request.newContext({ baseURL });
  await submitJob(request, { ...VISION_JOB, team: "vision", replicas: 1, gpusPerPod: 2 });
  await submitJob(request, { ...LLM_JOB, team: "llm-research", replicas: 2, gpusPerPod: 4 });
  await request.dispose();
});

test.afterAll(async ({ playwright, baseURL }) => {
  const request = await playwright.request.newContext({ baseURL });
  await deleteJob(request, VISION_JOB);
  await deleteJob(request, LLM_JOB);
  await request.dispose();
});

test("every TV view on a 1080p and a 4K screen: the data, legible, nothing cut off, no serious axe finding", async ({
  adminRequest,
  browser,
}, testInfo) => {
  test.setTimeout(240_000);
  await waitForJobsRunning(adminRequest, [VISION_JOB, LLM_JOB]);
  // One fault, so the reliability view has a fault and an MTTR to show.
  const crash = await trpcMutation(adminRequest, "jobs.act", {
    job: VISION_JOB,
    input: { action: "inject-fault", kind: "crash", rank: 0 },
  });
  expect(crash.status(), await crash.text()).toBe(200);
  const token = await createToken(adminRequest, { label: "e2e wall screen", views: [...VIEWS] });

  for (const screen of SCREENS) {
    for (const view of VIEWS) {
      const page = await openAsTv({ browser, token, view, size: screen });
      await expect(page.getByRole("heading", { level: 1, name: TITLES[view] })).toBeVisible();
      await expect(page.getByText("Connecting…")).toHaveCount(0);
      await VIEW_CHECKS[view](page);
      await expectFitsScreen(page);
      // Type scales with the screen: a 4K screen's body text is twice 1080p's, and big enough from 3 m.
      const fontPx = await page.evaluate(() =>
        Number.parseFloat(getComputedStyle(document.querySelector("main") as Element).fontSize),
      );
      expect(fontPx).toBeGreaterThanOrEqual(screen.width >= 3840 ? 56 : 28);
      await expectReadableAndFilled(page, `${view} at ${screen.name}`, screen.width >= 3840 ? 56 : 28);
      await keepScreenshot(page, testInfo, `tv-${view}-${screen.name}`);
      await expectNoSeriousA11yViolations(page);
      await page.context().close();
    }
  }
});

test("a token shows only its views and its teams: another view is refused on screen with the reason", async ({
  adminRequest,
  browser,
}) => {
  const teams = await trpcQuery<Array<{ id: string; name: string }>>(adminRequest, "teams.list");
  const vision = teams.find((team) => team.name === "vision");
  expect(vision).toBeDefined();
  const token = await createToken(adminRequest, {
    label: "e2e vision jobs only",
    views: ["jobs"],
    teamIds: [vision?.id ?? ""],
  });
  const page = await openAsTv({ browser, token, view: "jobs" });
  await expect(page.getByRole("cell", { name: VISION_JOB.name })).toBeVisible();
  await expect(page.getByRole("cell", { name: LLM_JOB.name })).toHaveCount(0);

  await page.goto("/tv/reliability");
  const refusal = page.getByRole("alert", { name: "This view is not shared with this screen" });
  await expect(refusal).toBeVisible();
  await expect(refusal).toContainText("This token does not include the reliability view");
  await expect(page.getByRole("term")).toHaveCount(0);

  await page.goto("/tv");
  await expect(page.getByRole("link", { name: TITLES.jobs })).toBeVisible();
  await expect(page.getByRole("link", { name: TITLES.reliability })).toHaveCount(0);
  await page.context().close();
});

test("revoking the token ends the open stream within seconds, and the next request is refused", async ({
  adminRequest,
  browser,
}) => {
  const token = await createToken(adminRequest, { label: "e2e revoked screen", views: ["cluster"] });
  const page = await openAsTv({ browser, token, view: "cluster" });
  await expect(page.getByRole("term").filter({ hasText: "Running jobs" })).toBeVisible();

  const revoked = await trpcMutation(adminRequest, "shareTokens.revoke", { id: token.token.id });
  expect(revoked.status(), await revoked.text()).toBe(200);
  const ended = page.getByRole("alert", { name: "This screen has no access" });
  await expect(ended).toBeVisible({ timeout: 6000 });
  await expect(ended).toContainText(/share token was revoked|open this view with a share token/);
  // The last frame's data is gone from the screen once access has ended.
  await expect(page.getByRole("term")).toHaveCount(0);

  const next = await page.request.get("/api/trpc/tv.views");
  expect(next.status()).toBe(401);
  await page.context().close();
});

/**
 * A TCP relay between the browser and the console that can drop every connection and refuse new ones (a
 * network cut), then let them through again: a real drop of the open SSE stream, not an emulation.
 */
async function startCuttableRelay(target: URL) {
  const sockets = new Set<net.Socket>();
  let down = false;
  const server = net.createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.pipe(to);
      from.on("error", () => to.destroy());
      from.on("close", () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    cut: () => {
      down = true;
      for (const socket of sockets) socket.destroy();
    },
    restore: () => {
      down = false;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

test("when the stream drops, the last frame stays under a Reconnecting banner, then goes live again", async ({
  adminRequest,
  browser,
  baseURL,
}) => {
  const token = await createToken(adminRequest, { label: "e2e flaky network", views: ["jobs"] });
  const page = await openAsTv({ browser, token, view: "jobs" });
  const relay = await startCuttableRelay(new URL(baseURL ?? ""));
  // The token's cookie is for the host, whatever the port: the same screen, now through the relay.
  await page.goto(`${relay.url}/tv/jobs`);
  await expect(page.getByRole("cell", { name: VISION_JOB.name })).toBeVisible();
  const banner = page.getByRole("status").filter({ hasText: "Reconnecting" });
  await expect(banner).toHaveCount(0);
  relay.cut();
  await expect(banner).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole("cell", { name: VISION_JOB.name })).toBeVisible();
  relay.restore();
  await expect(banner).toHaveCount(0, { timeout: 30_000 });
  await expect(page.getByRole("cell", { name: VISION_JOB.name })).toBeVisible();
  await page.context().close();
  await relay.close();
});

test("a playlist shows its views in turn", async ({ adminRequest, browser }) => {
  const token = await createToken(adminRequest, {
    label: "e2e playlist",
    views: ["cluster", "jobs", "incidents"],
  });
  const page = await openAsTv({ browser, token, view: "cluster" });
  await page.goto("/tv/play?views=cluster,jobs,incidents&every=5");
  const title = page.getByRole("heading", { level: 1 });
  await expect(title).toHaveText(TITLES.cluster);
  await expect(page.getByText(`Next: ${TITLES.jobs}`)).toBeVisible();
  await expect(title).toHaveText(TITLES.jobs, { timeout: 8000 });
  await expect(page.getByRole("cell", { name: VISION_JOB.name })).toBeVisible();
  await expect(title).toHaveText(TITLES.incidents, { timeout: 8000 });
  await expect(title).toHaveText(TITLES.cluster, { timeout: 8000 });
  await page.context().close();
});
