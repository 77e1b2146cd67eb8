#!/usr/bin/env node
// `npx rebound-agent [torchrun-style flags] script [args]`: the Rebound agent (runs TypeScript via tsx).
import { register } from "tsx/esm/api";

register();
await import("../server/agent/main.ts");
