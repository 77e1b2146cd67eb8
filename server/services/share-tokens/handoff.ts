import { TV_VIEWS } from "@/server/domain/access/share";
import { SHARE_SECRET_PATTERN, shareCookie } from "./cookie";

/** `/tv`, `/tv/<view>` and the playlist `/tv/play`: the pages a share link opens. */
const TV_PAGE = new RegExp(`^/tv(?:/(?:${[...TV_VIEWS, "play"].join("|")}))?/?$`);

export const isTvPagePath = (pathname: string) => TV_PAGE.test(pathname);

/** HTTPS as the browser sees it: the URL, or `x-forwarded-proto` set by a TLS-terminating proxy. */
export function requestIsHttps(url: URL, headers: Headers): boolean {
  if (url.protocol === "https:") return true;
  return headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}

/**
 * A share link opened on a TV (`/tv/<view>?token=…`): the token moves into the HttpOnly cookie and the
 * browser is sent (303) to the same URL without it, so the secret stays out of the address bar, the history
 * and any Referer. A token that is not a share secret's shape is dropped, not stored. Null for any other URL.
 */
export function shareTokenHandoff(
  url: URL,
  headers: Headers,
): { location: string; setCookie: string | null } | null {
  const token = url.searchParams.get("token");
  if (token === null || !isTvPagePath(url.pathname)) return null;
  const params = new URLSearchParams(url.search);
  params.delete("token");
  const query = params.toString();
  return {
    location: `${url.pathname}${query ? `?${query}` : ""}`,
    setCookie: SHARE_SECRET_PATTERN.test(token)
      ? shareCookie({ value: token, secure: requestIsHttps(url, headers) })
      : null,
  };
}
