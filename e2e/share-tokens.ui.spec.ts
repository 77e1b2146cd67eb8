import {
  type APIRequestContext,
  type BrowserContext,
  expect,
  type Locator,
  type Page,
  test,
} from "@playwright/test";
import { signedInRequest } from "./fixtures/governance-api";
import { expectNoSeriousA11yViolations, screenshot } from "./fixtures/page-checks";
import { trpcMutation } from "./fixtures/trpc";
import { signIn } from "./pages/job-page";

/**
 * TV share tokens end to end (issue 13), against npm start's stack: a cluster admin creates a token and
 * sees its link once; a fresh browser opens it and is sent on without ?token= (the secret now in an HttpOnly
 * cookie); the admin list shows it used; revoked, the TV's next request is refused. A pairing code is
 * redeemed at /tv/pair in another fresh browser. Someone else neither sees the page nor gets its data.
 * The TV's requests are checked on tRPC's `tv.views` (a viewerProcedure query: 200 with the token's label,
 * 401 once it is revoked); the TV pages' own content is the TV views' spec's.
 */
test.describe.configure({ mode: "serial" });

const RUN = `e2e-${Date.now().toString(36)}`;
const LINK_LABEL = `${RUN} Lobby TV`;
const PAIRED_LABEL = `${RUN} Paired TV`;

/** /governance/tv-tokens: the create form, the once-shown link or code, and the list. */
class TvTokensPage {
  constructor(readonly page: Page) {}

  async goto() {
    await this.page.goto("/governance/tv-tokens");
    await expect(this.page.getByRole("heading", { name: "TV tokens", level: 1 })).toBeVisible();
  }

  async create(opts: { label: string; views: string[]; pairing?: boolean }) {
    const form = this.page.getByRole("form", { name: "New TV token" });
    await form.getByLabel("Label").fill(opts.label);
    for (const view of opts.views) await form.getByRole("checkbox", { name: view }).check();
    await form.getByRole("radio", { name: "All teams" }).check();
    await form
      .getByRole("radio", { name: opts.pairing ? /A pairing code/ : "A link to open on the TV" })
      .check();
    await form.getByRole("button", { name: "Create token" }).click();
  }

  linkBox(): Locator {
    return this.page.getByRole("textbox", { name: "TV link" });
  }

  row(label: string): Locator {
    return this.page.getByRole("table", { name: "TV tokens" }).getByRole("row").filter({ hasText: label });
  }

  async revoke(label: string) {
    await this.row(label)
      .getByRole("button", { name: `Revoke ${label}` })
      .click();
    await this.row(label)
      .getByRole("button", { name: `Yes, revoke ${label}` })
      .click();
    await expect(this.row(label)).toContainText("revoked");
  }
}

type TvViews = { views: string[]; viewer: { kind: string; label: string } };

/** The TV's own request for its views, with whatever credential its browser holds. */
async function tvViews(request: APIRequestContext): Promise<{ status: number; body: string }> {
  const response = await request.get("/api/trpc/tv.views");
  return { status: response.status(), body: await response.text() };
}

async function shareCookieOf(context: BrowserContext) {
  return (await context.cookies()).find((cookie) => cookie.name === "rebound_share");
}

let admin: APIRequestContext;
test.beforeAll(async ({ playwright, baseURL }) => {
  admin = await signedInRequest({ playwright, baseURL, email: "admin@rebound.local" });
});

test.afterAll(async () => {
  // Nothing this file made stays usable.
  const response = await admin.get("/api/trpc/shareTokens.list");
  const body = (await response.json()) as {
    result: { data: { json: Array<{ id: string; label: string }> } };
  };
  for (const token of body.result.data.json.filter((t) => t.label.startsWith(RUN)))
    await trpcMutation(admin, "shareTokens.revoke", { id: token.id });
  await admin.dispose();
});

test("a link token: shown once, opened on a TV without ?token= staying, last use shown, revoked and refused", async ({
  page,
  browser,
}, testInfo) => {
  await signIn(page, "admin@rebound.local");
  await page.goto("/governance");
  await page.getByRole("navigation", { name: "Governance" }).getByRole("link", { name: "TV tokens" }).click();
  const tokens = new TvTokensPage(page);
  await expect(page.getByRole("heading", { name: "TV tokens", level: 1 })).toBeVisible();

  // Bad input is named beside its field; nothing is created.
  await page.getByRole("button", { name: "Create token" }).click();
  await expect(page.getByLabel("Label")).toHaveAccessibleDescription(
    "give the token a label, e.g. where the screen hangs",
  );
  await expect(page.getByText("choose at least one view")).toBeVisible();

  await tokens.create({ label: LINK_LABEL, views: ["Jobs and goodput", "Cluster: GPUs by team"] });
  await expect(page.getByRole("heading", { name: `Link for ${LINK_LABEL}` })).toBeVisible();
  await expect(page.getByText("Shown once.")).toBeVisible();
  const link = await tokens.linkBox().inputValue();
  expect(link).toMatch(/\/tv\/jobs\?token=[A-Za-z0-9_-]{43}$/);
  const secret = new URL(link).searchParams.get("token") ?? "";
  await expect(tokens.row(LINK_LABEL)).toContainText("never");
  await screenshot(page, testInfo, "tv-tokens-link-created");
  await expectNoSeriousA11yViolations(page);

  // A TV: a fresh browser with no session opens the link.
  const tv = await browser.newContext();
  const tvPage = await tv.newPage();
  const answer = await tvPage.goto(link);
  const handoff = answer?.request().redirectedFrom();
  expect(handoff?.url()).toBe(link);
  expect((await handoff?.response())?.status()).toBe(303);
  await expect(tvPage).toHaveURL(/\/tv\/jobs$/);
  expect(tvPage.url()).not.toContain("token");
  const cookie = await shareCookieOf(tv);
  expect(cookie).toMatchObject({ value: secret, httpOnly: true, sameSite: "Lax", path: "/" });
  expect(await tvPage.evaluate(() => document.cookie)).not.toContain(secret);
  const views = await tvViews(tv.request);
  expect(views.status, views.body).toBe(200);
  const granted = (JSON.parse(views.body) as { result: { data: { json: TvViews } } }).result.data.json;
  expect(granted.viewer).toEqual({ kind: "share", label: LINK_LABEL });
  expect([...granted.views].sort()).toEqual(["cluster", "jobs"]);

  // The link was shown once: gone after a reload, and the list never carries it; it shows the use.
  await page.reload();
  await expect(tokens.row(LINK_LABEL)).toContainText("just now");
  await expect(tokens.linkBox()).toHaveCount(0);
  expect(await page.content()).not.toContain(secret);

  await tokens.revoke(LINK_LABEL);
  const refused = await tvViews(tv.request);
  expect(refused.status, refused.body).toBe(401);
  expect(refused.body).toContain("UNAUTHORIZED");
  await screenshot(page, testInfo, "tv-tokens-revoked");
  await tv.close();
});

test("a pairing code, typed at /tv/pair on a fresh browser, pairs that screen; /tv/forget drops it", async ({
  page,
  browser,
}, testInfo) => {
  await signIn(page, "admin@rebound.local");
  const tokens = new TvTokensPage(page);
  await tokens.goto();
  await tokens.create({ label: PAIRED_LABEL, views: ["Current incidents"], pairing: true });
  await expect(page.getByRole("heading", { name: `Pairing code for ${PAIRED_LABEL}` })).toBeVisible();
  const code = (await page.getByText(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/).textContent()) ?? "";
  await expect(tokens.row(PAIRED_LABEL)).toContainText("pairing code expires in 10 min");
  await screenshot(page, testInfo, "tv-tokens-pairing-code");

  const tv = await browser.newContext();
  const tvPage = await tv.newPage();
  await tvPage.goto("/tv/pair");
  await expect(tvPage.getByRole("heading", { name: "Pair this screen" })).toBeVisible();
  await expectNoSeriousA11yViolations(tvPage);
  await tvPage.getByLabel("Pairing code").fill("ZZZZ-ZZZZ");
  await tvPage.getByRole("button", { name: "Pair" }).click();
  await expect(tvPage.getByLabel("Pairing code")).toHaveAccessibleDescription(
    "this pairing code is wrong, expired or already used: ask a cluster admin for a new one",
  );
  await tvPage.getByLabel("Pairing code").fill(code.toLowerCase());
  await tvPage.getByRole("button", { name: "Pair" }).click();
  await expect(tvPage).toHaveURL(/\/tv\/incidents$/);
  expect(await shareCookieOf(tv)).toMatchObject({ httpOnly: true, sameSite: "Lax" });
  const views = await tvViews(tv.request);
  expect(views.status, views.body).toBe(200);
  expect(views.body).toContain(PAIRED_LABEL);

  await page.reload();
  await expect(tokens.row(PAIRED_LABEL)).toContainText("active");
  await expect(tokens.row(PAIRED_LABEL)).toContainText("just now");

  await tvPage.goto("/tv/forget");
  await expect(tvPage).toHaveURL(/\/sign-in$/);
  expect(await shareCookieOf(tv)).toBeUndefined();
  expect((await tvViews(tv.request)).status).toBe(401);
  await tv.close();
});

test("anyone but a cluster admin sees no TV tokens entry and gets the server's refusal", async ({ page }) => {
  await signIn(page, "lead@rebound.local");
  await page.goto("/governance");
  const nav = page.getByRole("navigation", { name: "Governance" });
  await expect(nav.getByRole("link", { name: "Audit log" })).toBeVisible();
  await expect(nav.getByRole("link", { name: "TV tokens" })).toHaveCount(0);
  await page.goto("/governance/tv-tokens");
  await expect(page.getByRole("alert").filter({ hasText: "Could not load the TV tokens" })).toHaveText(
    /only a cluster admin may do this/,
  );
  const created = await trpcMutation(page.request, "shareTokens.create", {
    label: `${RUN} sneaky`,
    views: ["jobs"],
    allTeams: true,
    teamIds: [],
  });
  expect(created.status()).toBe(403);
});
