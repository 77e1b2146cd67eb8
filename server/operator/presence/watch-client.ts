import { type ClientRequest, request } from "node:http";

/**
 * The operator's end of one agent's watch stream (README.md beside this file): GET
 * <agentUrl>/rebound/v1/watch?heartbeat_ms=N on a connection of its own (not the keep-alive pool the
 * commands use). Splits the ndjson body: each non-empty line is a /status text, each bare "\n" a heartbeat.
 * Never throws; everything ends in exactly one `closed` call, unless close() was called first.
 */

export const WATCH_PATH = "/rebound/v1/watch";
/** A line longer than this is not an agent talking (a /status of 2,048 local ranks is ~1 MB). */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

export type WatchEvents = {
  /** The agent answered 200: it pushes. */
  opened(): void;
  line(text: string): void;
  heartbeat(): void;
  /** The agent answered, but not with a stream (404: it does not push). */
  refused(status: number): void;
  /** The stream ended or never opened (refused connection, timeout, reset, end). */
  closed(reason: string): void;
};

export type WatchHandle = { close(): void };

export function openWatch(input: {
  url: string;
  heartbeatMs: number;
  /** No answer (headers) within this long ends the attempt. */
  connectTimeoutMs: number;
  events: WatchEvents;
  /** The pod's agent credential (server/cluster/agent-credential.ts), sent as `Authorization: Bearer`. */
  credential?: string | null;
}): WatchHandle {
  const { events } = input;
  let done = false;
  let outgoing: ClientRequest | null = null;
  const finish = (reason: string) => {
    if (done) return;
    done = true;
    clearTimeout(deadline);
    outgoing?.destroy();
    events.closed(reason);
  };
  const deadline = setTimeout(() => finish("no answer in time"), input.connectTimeoutMs);
  outgoing = request(
    `${input.url}${WATCH_PATH}?heartbeat_ms=${input.heartbeatMs}`,
    {
      method: "GET",
      agent: false,
      headers: {
        accept: "application/x-ndjson",
        ...(input.credential ? { authorization: `Bearer ${input.credential}` } : {}),
      },
    },
    (response) => {
      clearTimeout(deadline);
      if (response.statusCode !== 200) {
        done = true;
        response.resume();
        outgoing?.destroy();
        events.refused(response.statusCode ?? 0);
        return;
      }
      events.opened();
      let partial = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        if (done) return;
        partial = splitLines(partial + chunk, events);
        if (partial.length > MAX_LINE_BYTES) finish("line too long");
      });
      response.on("end", () => finish("stream ended"));
      response.on("error", (error) => finish(String(error)));
      response.on("close", () => finish("stream closed"));
    },
  );
  outgoing.on("error", (error) => finish(String(error)));
  outgoing.setNoDelay(true);
  outgoing.end();
  return {
    close() {
      done = true;
      clearTimeout(deadline);
      outgoing?.destroy();
    },
  };
}

/** Hands out every complete line of `text`; returns the incomplete rest. */
function splitLines(text: string, events: Pick<WatchEvents, "line" | "heartbeat">): string {
  let start = 0;
  for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
    if (end === start) events.heartbeat();
    else events.line(text.slice(start, end));
    start = end + 1;
  }
  return start === 0 ? text : text.slice(start);
}
