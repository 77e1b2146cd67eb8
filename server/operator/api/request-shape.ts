import type { IncomingMessage } from "node:http";
import { HttpError } from "./http-utils";

/**
 * What a request must look like before its credential is even looked at (issue 16, item 9). A web page can
 * make a browser send a cross-site `text/plain` POST without asking anyone, and DNS rebinding points a name
 * the page controls at 127.0.0.1: so writes carry a content type a page cannot send without a CORS
 * preflight (which this API never answers), and the local API answers only requests addressed to loopback.
 */
export type BodyKind = "json" | "yaml";

const JSON_TYPES = ["application/json"];
/** Job submission: YAML under its own types, or JSON (which is YAML). The CLI sends application/yaml. */
const YAML_TYPES = ["application/yaml", "application/x-yaml", "text/yaml", ...JSON_TYPES];
const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const LOOPBACK = ["127.0.0.1", "localhost", "[::1]"];

const mediaType = (header: string | undefined) => (header ?? "").split(";")[0]?.trim().toLowerCase() ?? "";

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length.trim() !== "0");
}

/** 415 unless a write's body is declared as a type the route reads (a DELETE without a body needs none). */
export function refuseContentType(req: IncomingMessage, body: BodyKind): void {
  const method = req.method ?? "";
  if (!WRITES.has(method) || (method === "DELETE" && !hasBody(req))) return;
  const accepted = body === "yaml" ? YAML_TYPES : JSON_TYPES;
  const type = mediaType(req.headers["content-type"]);
  if (accepted.includes(type)) return;
  throw new HttpError(
    415,
    `content-type: expected ${accepted.join(", ")} for ${method} ${(req.url ?? "/").split("?")[0]}, got ${type || "none"}`,
  );
}

/** The Host values that name this listener on loopback: 127.0.0.1, localhost or [::1], with its port. */
function loopbackHosts(port: number | undefined): string[] {
  const withPort = LOOPBACK.map((host) => `${host}:${port}`);
  return port === 80 ? [...withPort, ...LOOPBACK] : withPort;
}

/**
 * 421 for a Host that is not this listener's loopback address (a rebound DNS name, a foreign host), 403 for
 * an Origin that is not that same loopback origin (browsers send Origin cross-site; the CLI, curl and the
 * console's server send none).
 */
export function refuseForeignHost(req: IncomingMessage): void {
  const hosts = loopbackHosts(req.socket?.localPort);
  const host = (req.headers.host ?? "").toLowerCase();
  if (!hosts.includes(host))
    throw new HttpError(
      421,
      `host: expected ${hosts.join(", ")} (the local operator answers requests addressed to loopback only), got ${host || "none"}`,
    );
  const { origin } = req.headers;
  if (origin === undefined) return;
  const origins = hosts.map((name) => `http://${name}`);
  if (!origins.includes(origin.toLowerCase()))
    throw new HttpError(
      403,
      `origin: expected none or ${origins.join(", ")} (the operator's API is not for web pages), got ${origin}`,
    );
}
