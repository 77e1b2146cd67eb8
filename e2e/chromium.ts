import { existsSync } from "node:fs";

/**
 * How Rebound runs Chromium, for the e2e tests and bench:console alike: Debian's build when present
 * (PLAYWRIGHT_CHROMIUM_PATH to use another; neither: Playwright's own download), as root without the
 * sandbox, and with the background networking this closed machine would refuse turned off.
 */
const DEBIAN_CHROMIUM = "/usr/bin/chromium";

export const chromiumExecutablePath: string | undefined =
  process.env.PLAYWRIGHT_CHROMIUM_PATH ?? (existsSync(DEBIAN_CHROMIUM) ? DEBIAN_CHROMIUM : undefined);

export const CHROMIUM_ARGS: readonly string[] = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
