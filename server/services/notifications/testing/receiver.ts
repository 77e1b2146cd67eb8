import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A webhook receiver for the tests (a real HTTP server on 127.0.0.1): records every request and answers
 * each by its script, then by `then`. ok: 200 `ok` (what Slack answers); error: 500; refuse: 200
 * `invalid_payload` (Slack's refusal); hang: no answer at all, until the receiver closes.
 */
export type Reply = "ok" | "error" | "refuse" | "hang";

export type ReceivedRequest = { path: string; contentType: string | undefined; body: unknown; at: number };

export type Receiver = {
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
};

export async function startReceiver(script: Reply[] = [], then: Reply = "ok"): Promise<Receiver> {
  const replies = [...script];
  const requests: ReceivedRequest[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Kept as text: the test then sees what was sent.
      }
      requests.push({
        path: request.url ?? "",
        contentType: request.headers["content-type"],
        body,
        at: Date.now(),
      });
      answer(response, replies.shift() ?? then);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(response: ServerResponse, reply: Reply): void {
  switch (reply) {
    case "ok":
      response.writeHead(200, { "content-type": "text/plain" }).end("ok");
      return;
    case "error":
      response.writeHead(500, { "content-type": "text/plain" }).end("internal error");
      return;
    case "refuse":
      response.writeHead(200, { "content-type": "text/plain" }).end("invalid_payload");
      return;
    case "hang":
      return;
    default:
      reply satisfies never;
  }
}
