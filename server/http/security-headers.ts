/**
 * The console's response headers (issue 16 item 8), in one place: pages get theirs from proxy.ts with a
 * fresh script nonce; route handlers and static assets get theirs from next.config.ts `headers()`.
 */

/** A page that may be framed, and by whom: `frameAncestors` gets the request's URL (its share token). */
export type FramingRule = { prefix: string; frameAncestors: (url: URL) => string };

/**
 * The pages that may be framed. Empty: no page of the console may be framed by anyone. The TV dashboards
 * (a later issue) add their rule here, letting framing through only where the URL's share token says so.
 */
export const FRAMEABLE_PATHS: readonly FramingRule[] = [];

/** `frame-ancestors` for a page: 'none' unless a rule in FRAMEABLE_PATHS says otherwise. */
export function frameAncestorsFor(url: URL): string {
  const rule = FRAMEABLE_PATHS.find((candidate) => url.pathname.startsWith(candidate.prefix));
  return rule ? rule.frameAncestors(url) : "'none'";
}

/**
 * A page's CSP. Scripts: only this origin's and those carrying the request's nonce (Next puts it on its
 * bootstrap and inline payload scripts); 'strict-dynamic' lets those load Next's chunks. Styles: this
 * origin's sheets plus inline style attributes (React and the charts set them; they cannot carry a nonce).
 * In development React needs eval for its error overlays.
 */
export function pageContentSecurityPolicy(opts: { nonce: string; url: URL; dev: boolean }): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${opts.nonce}' 'strict-dynamic'${opts.dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    `frame-ancestors ${frameAncestorsFor(opts.url)}`,
  ].join("; ");
}

/** Route handlers (JSON, SSE) and static assets: nothing in them runs, nothing may frame them. */
export const NON_PAGE_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** On every response. */
export const COMMON_HEADERS = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "no-referrer" },
] as const;

/** The frame-related headers of a page (X-Frame-Options for browsers without CSP frame-ancestors). */
export function pageFrameHeaders(url: URL): { key: string; value: string }[] {
  return frameAncestorsFor(url) === "'none'" ? [{ key: "X-Frame-Options", value: "DENY" }] : [];
}
