import { isTvView, TV_VIEWS, type TvView } from "@/server/domain/access/share";

export const DEFAULT_EVERY_S = 30;
export const MIN_EVERY_S = 5;
export const MAX_EVERY_S = 3600;

export type Playlist = { views: TvView[]; everyS: number };

/**
 * `/tv/play?views=cluster,jobs,incidents&every=30`: the views in the order given (unknown names and repeats
 * dropped; none given: every view), each shown `every` seconds (5 s to 1 h; 30 s when missing or not a number).
 */
export function parsePlaylist(params: { views?: string | string[]; every?: string | string[] }): Playlist {
  const raw = Array.isArray(params.views) ? params.views.join(",") : (params.views ?? "");
  const named = raw
    .split(",")
    .map((name) => name.trim())
    .filter(isTvView);
  const views = named.length > 0 ? [...new Set(named)] : [...TV_VIEWS];
  const every = Number(Array.isArray(params.every) ? params.every[0] : params.every);
  const everyS = Number.isFinite(every)
    ? Math.min(MAX_EVERY_S, Math.max(MIN_EVERY_S, Math.round(every)))
    : DEFAULT_EVERY_S;
  return { views, everyS };
}

/** The playlist's own link. */
export function playlistHref(playlist: Playlist): string {
  return `/tv/play?views=${playlist.views.join(",")}&every=${playlist.everyS}`;
}

/** A playlist limited to the views the viewer may open (a token's views); null when none is left. */
export function allowedPlaylist(playlist: Playlist, allowed: readonly TvView[]): Playlist | null {
  const views = playlist.views.filter((view) => allowed.includes(view));
  return views.length > 0 ? { views, everyS: playlist.everyS } : null;
}
