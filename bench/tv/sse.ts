import superjson from "superjson";

/**
 * One tRPC 11 subscription over SSE, as httpSubscriptionLink opens it (GET /api/trpc/<path>?input=<superjson
 * JSON>, Accept: text/event-stream), read with fetch: Node 20 has no EventSource and the bench adds no
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

async function pump(input: {
  body: ReadableStream<Uint8Array>;
  onValue: (value: unknown, at: number) => void;
}): Promise<string> {
  const decoder = new TextDecoder();
  const reader = input.body.getReader();
  let buffer = "";
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    const at = Date.now();
    buffer += decoder.decode(chunk.value, { stream: true });
    const { events, rest } = takeEvents(buffer);
    buffer = rest;
    for (const event of events) {
      const read = readEvent(event);
      if (read && "end" in read) return read.end;
      if (read) input.onValue(read.value, at);
    }
  }
  return "the connection closed";
}

export function subscribe(opts: {
  baseUrl: string;
  path: string;
  input: unknown;
  headers: Record<string, string>;
  onValue: (value: unknown, at: number) => void;
}): Subscription {
  const abort = new AbortController();
  const input = encodeURIComponent(JSON.stringify(superjson.serialize(opts.input)));
  const ended = (async () => {
    const response = await fetch(`${opts.baseUrl}/api/trpc/${opts.path}?input=${input}`, {
      headers: { ...opts.headers, accept: "text/event-stream" },
      signal: abort.signal,
    });
    if (!response.ok || !response.body) return `refused: ${response.status} ${await response.text()}`;
    return pump({ body: response.body, onValue: opts.onValue });
  })().catch((error: unknown) => (abort.signal.aborted ? "closed" : `failed: ${String(error)}`));
  return { ended, close: () => abort.abort() };
}
