#!/usr/bin/env node
// `npx rebound <command>`: the Rebound CLI (runs TypeScript via tsx).
import { register } from "tsx/esm/api";

register();
await import("../server/cli/main.ts");
