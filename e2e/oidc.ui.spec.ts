import { expect, type Page, test } from "@playwright/test";
import { startTestProvider, type TestProvider } from "../test/oidc-provider";
import { e2eOidcEnv } from "./fixtures/oidc-env";
import { signInWithProvider } from "./fixtures/oidc-login";
import { trpcQuery } from "./fixtures/trpc";
import { signIn } from "./pages/job-page";

/**
 * Single sign-on in Chromium (issue 38): a cluster admin maps a group to a team role on
 * /governance/sso; a user signs in through the provider's own login page (oidc-provider, started here on
 * the port the console is configured with: e2e/fixtures/oidc-env.ts) and lands in the console with that
 * team; their group taken away at the provider, the next sign-in leaves them no team; sign-out ends it.
 */
test.describe.configure({ mode: "serial" });

const RUN = `e2e-${Date.now().toString(36)}`;
const GROUP = `${RUN}-vision`;
const LOGIN = `${RUN}-dana`;
const oidc = e2eOidcEnv(Number(process.env.E2E_PORT ?? 3210));
let provider: TestProvider;

type Me = { name: string; memberships: Array<{ teamName: string; role: string }> } | null;

test.beforeAll(async () => {
  provider = await startTestProvider({ redirectUri: oidc.redirectUri, port: oidc.providerPort });
  provider.accounts.set(LOGIN, {
    email: `${LOGIN}@example.com`,
    email_verified: true,
    name: "Dana SSO",
    groups: [GROUP],
  });
});

test.afterAll(async () => {
  await provider?.close();
});

/** From the console's sign-in page, through the provider's login (and consent) page, back to the console. */
const signInWithTestIdp = (page: Page) =>
  signInWithProvider(page, { signInUrl: "/sign-in", button: "Sign in with Test IdP", login: LOGIN });

test("a cluster admin maps a group to a team role on the single sign-on page", async ({ page }) => {
  await signIn(page, "admin@rebound.local");
  await page.goto("/governance/sso");
  await expect(page.getByRole("heading", { name: "Single sign-on", level: 1 })).toBeVisible();
  await expect(page.getByText("Signing in with Test IdP")).toBeVisible();
  const form = page.getByRole("region", { name: "New mapping" });
  await form.getByRole("textbox", { name: "Group", exact: true }).fill(GROUP);
  await form
    .getByRole("combobox", { name: "Gives", exact: true })
    .selectOption({ label: "a role on vision" });
  await form.getByRole("combobox", { name: "Role", exact: true }).selectOption({ label: "Engineer" });
  await form.getByRole("button", { name: "Add mapping" }).click();
  const row = page.getByRole("table", { name: "Group mappings" }).getByRole("row").filter({ hasText: GROUP });
  await expect(row).toContainText("vision");
  await expect(row).toContainText("Engineer");
});

test("a user signs in through the provider's login page and sees the console with the mapped team", async ({
  page,
}) => {
  await signInWithTestIdp(page);
  const session = page.locator(".shell-session");
  await expect(session).toContainText("Dana SSO");
  await expect(session.getByText("Dana SSO")).toHaveAttribute("title", "engineer · vision");
  const me = await trpcQuery<Me>(page.request, "auth.me");
  expect(me?.memberships).toEqual([expect.objectContaining({ teamName: "vision", role: "engineer" })]);

  // The group taken away at the provider: the next sign-in leaves no team.
  provider.accounts.set(LOGIN, {
    email: `${LOGIN}@example.com`,
    email_verified: true,
    name: "Dana SSO",
    groups: [],
  });
  await session.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  expect(await trpcQuery<Me>(page.request, "auth.me")).toBeNull();
  await signInWithTestIdp(page);
  expect((await trpcQuery<Me>(page.request, "auth.me"))?.memberships).toEqual([]);

  await page.locator(".shell-session").getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  expect(await trpcQuery<Me>(page.request, "auth.me")).toBeNull();
});
