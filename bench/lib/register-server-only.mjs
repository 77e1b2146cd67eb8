import { register } from "node:module";

/** Registers server-only-hook.mjs (passed to a benchmark's child process with --import, after tsx). */
register(new URL("./server-only-hook.mjs", import.meta.url));
