#!/usr/bin/env node
// `npx rebound-agent [torchrun-style flags] script [args]`: the Rebound agent. The image sets
// REBOUND_AGENT_BUNDLE to its bundle (scripts/lib/agent-build.ts), which starts without compiling anything;
// otherwise the TypeScript sources run through tsx, so a change to them is what runs.
import { fileURLToPath, pathToFileURL } from "node:url";

// biome-ignore lint/style/noProcessEnv: the launcher reads this one variable before any of the agent loads.
const bundle = process.env.REBOUND_AGENT_BUNDLE;
if (bundle) {
  await import(pathToFileURL(bundle).href);
} else {
  const { register } = await import("tsx/esm/api");
  // The project tsconfig (its "@/" paths) applies wherever the command is started from.
  register({ tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) });
  await import("../server/agent/main.ts");
}
