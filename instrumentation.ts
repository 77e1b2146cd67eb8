/**
 * Runs once when the console's server starts (Next's instrumentation hook), before it handles requests:
 * every request then gets the connection's address stamped on it, for sign-in and pairing limits
 * (server/services/auth/peer-address.ts), and SSE messages are encoded in one piece instead of Node's
 * character-at-a-time TextEncoderStream (server/http/utf8-encoder-stream.ts). Next's documented form, so the
 * Edge build leaves the imports out.
 */
export async function register() {
  // biome-ignore lint/style/noProcessEnv: Next names the runtime only here; the stamp needs Node's HTTP server.
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { stampPeerAddresses } = await import("@/server/services/auth/peer-address");
    const { installUtf8EncoderStream } = await import("@/server/http/utf8-encoder-stream");
    stampPeerAddresses();
    installUtf8EncoderStream();
  }
}
