/**
 * Runs once when the console's server starts (Next's instrumentation hook), before it handles requests:
 * every request then gets the connection's address stamped on it, for sign-in and pairing limits
 * (server/services/auth/peer-address.ts). Next's documented form, so the Edge build leaves the import out.
 */
export async function register() {
  // biome-ignore lint/style/noProcessEnv: Next names the runtime only here; the stamp needs Node's HTTP server.
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { stampPeerAddresses } = await import("@/server/services/auth/peer-address");
    stampPeerAddresses();
  }
}
