import { defineConfig, devices } from "@playwright/test";
import { CHROMIUM_ARGS, chromiumExecutablePath } from "./e2e/chromium";
import { e2eOidcEnv } from "./e2e/fixtures/oidc-env";

/**
 * e2e against the real stack: `npm start`'s launcher (build, embedded Postgres, migrate, seed, console)
 * with its own data dir and port. Chromium is Debian's (`apt-get install chromium`) when present; set
 * PLAYWRIGHT_CHROMIUM_PATH to use another, or unset both to use Playwright's own download
 * (`npx playwright install chromium`) on machines that can fetch it.
 */
const PORT = Number(process.env.E2E_PORT ?? 3210);
const baseURL = `http://127.0.0.1:${PORT}`;

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results/e2e",
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0,
  workers: 1,
  timeout: 60_000,
  reporter: [["list"], ["json", { outputFile: "test-results/e2e-report.json" }]],
  use: {
    baseURL,
    // The console's dark theme unless a test asks for the light one (e2e/admin-edges.ui.spec.ts checks both).
    colorScheme: "dark",
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: { executablePath: chromiumExecutablePath, args: [...CHROMIUM_ARGS] },
  },
  projects: [
    { name: "api", testMatch: /.*\.api\.spec\.ts/ },
    { name: "ui", testMatch: /.*\.ui\.spec\.ts/, use: { ...devices["Desktop Chrome"] } },
  ],
  webServer: {
    command: "npx tsx scripts/start.ts",
    url: `${baseURL}/api/healthz`,
    timeout: 300_000,
    reuseExistingServer: !process.env.CI,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 20_000 },
    env: {
      PORT: String(PORT),
      HOSTNAME: "127.0.0.1",
      REBOUND_DATA_DIR: process.env.E2E_DATA_DIR ?? ".data/e2e",
      OPERATOR_PORT: String(PORT + 1),
      REBOUND_DEMO: "never",
      NEXT_TELEMETRY_DISABLED: "1",
      // Single sign-on with the provider e2e/oidc.ui.spec.ts starts (passwords stay on for the other specs).
      ...e2eOidcEnv(PORT).env,
    },
  },
});
