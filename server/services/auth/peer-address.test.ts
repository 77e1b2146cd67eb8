import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { PEER_HEADER, peerAddressOf, stampPeerAddresses } from "./peer-address";

describe("peer address", () => {
  it("is the connection's address stamped by this process; a client's own header is overwritten", async () => {
    expect(peerAddressOf(new Headers({ [PEER_HEADER]: "anything 6.6.6.6" }))).toBeUndefined();
    stampPeerAddresses();
    const seen: Array<string | undefined> = [];
    const server = http.createServer((req, res) => {
      const headers = new Headers();
      for (const [key, value] of Object.entries(req.headers))
        if (typeof value === "string") headers.set(key, value);
      seen.push(peerAddressOf(headers));
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await fetch(`http://127.0.0.1:${port}/`, { headers: { [PEER_HEADER]: "forged 6.6.6.6" } });
    await fetch(`http://127.0.0.1:${port}/`, { headers: { "x-forwarded-for": "6.6.6.6" } });
    await new Promise((resolve) => server.close(resolve));
    expect(seen).toEqual(["127.0.0.1", "127.0.0.1"]);
    expect(peerAddressOf(new Headers({ [PEER_HEADER]: "forged 6.6.6.6" }))).toBeUndefined();
  });
});
