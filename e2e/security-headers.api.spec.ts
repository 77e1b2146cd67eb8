import { expect, test } from "@playwright/test";
import { postLyingLength, postStreamed } from "../server/http/testing/oversized-bodies";

/**
 * Issue 16 items 8 and 5 against the built console: every page and route handler carries the security
 * headers, nothing says what serves it, the teams list needs a session, and oversized bodies get 413.
 */
const PAGES = [
  "/",
  "/sign-in",
  "/jobs",
  "/cluster",
  "/jobs/hyperpod-ns-llm-research/demo-llm",
  "/no-such-page",
];
const ROUTES = ["/api/healthz", "/api/trpc/auth.me", "/api/trpc/teams.list"];
const MB = 1024 * 1024;

function expectCommonHeaders(headers: Record<string, string>, where: string) {
  expect(headers["x-content-type-options"], where).toBe("nosniff");
  expect(headers["referrer-policy"], where).toBe("no-referrer");
  expect(headers["x-frame-options"], where).toBe("DENY");
  expect(headers["content-security-policy"], where).toContain("frame-ancestors 'none'");
  expect(headers["x-powered-by"], where).toBeUndefined();
}

test("every page carries a nonce CSP, X-Frame-Options, nosniff and no-referrer, and no X-Powered-By", async ({
  request,
}) => {
  for (const path of PAGES) {
    const response = await request.get(path);
    const headers = response.headers();
    expectCommonHeaders(headers, path);
    const csp = headers["content-security-policy"] ?? "";
    expect(csp, path).toContain("default-src 'self'");
    expect(csp, path).toContain("img-src 'self' data:");
    expect(csp, path).toContain("connect-src 'self'");
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce, `${path}: script-src with a nonce`).toBeTruthy();
    expect(csp, path).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    // Next put the nonce on its own scripts.
    expect(await response.text(), path).toContain(`nonce="${nonce}"`);
  }
  const [first, second] = await Promise.all([request.get("/"), request.get("/")]);
  expect(first.headers()["content-security-policy"]).not.toBe(second.headers()["content-security-policy"]);
});

test("route handlers carry the headers too, with a CSP that runs nothing", async ({ request }) => {
  for (const path of ROUTES) {
    const headers = (await request.get(path)).headers();
    expectCommonHeaders(headers, path);
    expect(headers["content-security-policy"], path).toContain("default-src 'none'");
  }
});

test("a page under the CSP runs: the sign-in form works and the browser reports no violation", async ({
  page,
}) => {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill("viewer@rebound.local");
  await page.getByLabel("Password").fill("rebound-demo");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/jobs$/);
  await page.goto("/");
  await expect(page.getByRole("table", { name: "Teams and quotas" })).toBeVisible();
  expect(violations).toEqual([]);
});

test("teams.list without a session: 401, and no team data in the answer", async ({ request }) => {
  const response = await request.get("/api/trpc/teams.list");
  expect(response.status()).toBe(401);
  const body = await response.text();
  expect(body).toContain("UNAUTHORIZED");
  for (const leak of ["hyperpod-ns-", "llm-research", "nvidia.com/gpu", "memberCount"]) {
    expect(body).not.toContain(leak);
  }
});

test("oversized bodies get 413 from the built console: 200 MB streamed, and a lying Content-Length", async ({
  baseURL,
}) => {
  const url = `${baseURL}/api/trpc/auth.signIn`;
  const streamed = await postStreamed({ url, totalBytes: 200 * MB });
  expect(streamed.status).toBe(413);
  expect(streamed.body).toContain("PAYLOAD_TOO_LARGE");
  const lying = await postLyingLength({ url, declaredBytes: 200 * MB });
  expect(lying.status).toBe(413);
});
