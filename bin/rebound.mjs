#!/usr/bin/env node
// `npx rebound <command>`: the Rebound CLI (runs TypeScript via tsx).
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

// The project tsconfig (its "@/" paths) applies wherever the command is started from.
register({ tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) });
await import("../server/cli/main.ts");
