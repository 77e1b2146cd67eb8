#!/usr/bin/env node
// `npx rebound-agent [torchrun-style flags] script [args]`: the Rebound agent (runs TypeScript via tsx).
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

// The project tsconfig (its "@/" paths) applies wherever the command is started from.
register({ tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) });
await import("../server/agent/main.ts");
