import { get, type IncomingMessage } from "node:http";
import superjson from "superjson";

/**
 * One tRPC 11 subscription over SSE, as httpSubscriptionLink opens it (GET /api/trpc/<path>?input=<superjson
 * JSON>, Accept: text/event-stream), read with node:http: Node 20 has no EventSource and the bench adds no
 * polyfill. Each data event is handed over deserialized with the time its last byte arrived. The stream never
 * reconnects: an ended stream is a dropped viewer, and `ended` says why.
 */
export type Subscription = {
  /** Resolves when the stream ends for any reason but close(): the server ended it, an error, a drop. */
  ended: Promise<string>;
  close(): void;
};

type SseEvent = { event: string; data: string };

/** One event's lines: its type (default "message") and its data lines joined. */
function parseBlock(block: string): SseEvent {
  const lines = block.split(/\r?\n/);
  const event =
    lines
      .find((line) => line.startsWith("event:"))
      ?.slice(6)
      .trim() ?? "message";
  const data = lines
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5));
  return { event, data: data.join("\n") };
}

/** Splits a text buffer into complete events (a blank line ends one); returns the rest. */
function takeEvents(buffer: string): { events: SseEvent[]; rest: string } {
  const blocks = buffer.split(/\r?\n\r?\n/);
  const rest = blocks.pop() ?? "";
  return { events: blocks.map(parseBlock), rest };
}

/** What an event means for the viewer: a value, nothing (connected, ping), or the end with a reason. */
function readEvent(event: SseEvent): { value: unknown } | { end: string } | null {
  switch (event.event) {
    case "message":
      return { value: superjson.deserialize(JSON.parse(event.data)) };
    case "serialized-error": {
      const error = superjson.deserialize(JSON.parse(event.data)) as { message?: string } | null;
      return { end: `the server ended the stream with an error: ${error?.message ?? event.data}` };
    }
    case "return":
      return { end: "the server ended the stream" };
    default:
      return null;
  }
}

/** Hands each event's value over; the end's reason when an event ends the stream, else null. */
function handOver(
  events: SseEvent[],
  onValue: (value: unknown, at: number) => void,
  at: number,
): string | null {
  for (const event of events) {
    const read = readEvent(event);
    if (read && "end" in read) return read.end;
    if (read) onValue(read.value, at);
  }
  return null;
}

/** Feeds the response's text to `onValue` event by event; resolves with why the stream ended. */
function pump(response: IncomingMessage, onValue: (value: unknown, at: number) => void): Promise<string> {
  return new Promise((resolve) => {
    let buffer = "";
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => {
      const { events, rest } = takeEvents(buffer + chunk);
      buffer = rest;
      const end = handOver(events, onValue, Date.now());
      if (end === null) return;
      response.destroy();
      resolve(end);
    });
    response.on("end", () => resolve("the connection closed"));
    response.on("error", (error) => resolve(`the connection failed: ${error.message}`));
  });
}

/** A refused request's status and the start of its body. */
function refusal(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = "";
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => {
      body += chunk;
    });
    response.on("close", () => resolve(`refused: ${response.statusCode} ${body.slice(0, 300)}`));
  });
}

export function subscribe(opts: {
  baseUrl: string;
  path: string;
  input: unknown;
  headers: Record<string, string>;
  onValue: (value: unknown, at: number) => void;
}): Subscription {
  let closed = false;
  const input = encodeURIComponent(JSON.stringify(superjson.serialize(opts.input)));
  // node:http rather than fetch: no body timeout (a quiet TV stream may send nothing for minutes).
  const request = get(`${opts.baseUrl}/api/trpc/${opts.path}?input=${input}`, {
    headers: { ...opts.headers, accept: "text/event-stream" },
  });
  const ended = new Promise<string>((resolve) => {
    request.on("response", (response) => {
      const ok = response.statusCode === 200;
      void (ok ? pump(response, opts.onValue) : refusal(response)).then(resolve);
    });
    request.on("error", (error) => resolve(`failed: ${error.message}`));
  }).then((reason) => (closed ? "closed" : reason));
  return {
    ended,
    close() {
      closed = true;
      request.destroy();
    },
  };
}
