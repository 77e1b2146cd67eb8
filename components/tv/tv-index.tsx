"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/lib/trpc/client";
import { TV_VIEW_TITLES, TV_VIEWS } from "@/server/domain/access/share";
import { allowedPlaylist, DEFAULT_EVERY_S, playlistHref } from "./playlist";
import styles from "./tv.module.css";
import { TvEnded } from "./tv-ended";

/** Ready-made playlists; each is offered with the views this screen may open. */
const PLAYLISTS = [
  { label: "Every view", views: [...TV_VIEWS] },
  { label: "Operations: cluster, jobs, incidents", views: ["cluster", "jobs", "incidents"] as const },
];

/** The views this screen may open (a token's, or all for a signed-in user) and playlists of them. */
export function TvIndex() {
  const trpc = useTRPC();
  const views = useQuery(trpc.tv.views.queryOptions(undefined, { retry: false }));
  const code = views.error?.data?.code;
  return (
    <main className={styles.screen} aria-labelledby="tv-title">
      <header className={styles.header}>
        <h1 id="tv-title" className={styles.title}>
          TV dashboards
        </h1>
        {views.data ? <span className={styles.scope}>{views.data.viewer.label}</span> : null}
      </header>
      <div className={styles.bannerSlot} />
      {views.isPending ? (
        <p className={styles.message}>Loading…</p>
      ) : views.error ? (
        <TvEnded
          code={code === "UNAUTHORIZED" || code === "FORBIDDEN" ? code : "OTHER"}
          message={views.error.message}
        />
      ) : (
        <div className={styles.body}>
          <section aria-labelledby="tv-views">
            <h2 id="tv-views" className={styles.sectionTitle}>
              Views
            </h2>
            <ul className={styles.index}>
              {views.data.views.map((view) => (
                <li key={view}>
                  <a href={`/tv/${view}`}>{TV_VIEW_TITLES[view]}</a>
                </li>
              ))}
            </ul>
          </section>
          <section aria-labelledby="tv-playlists">
            <h2 id="tv-playlists" className={styles.sectionTitle}>
              Playlists (each view for {DEFAULT_EVERY_S} s, in turn)
            </h2>
            <ul className={styles.index}>
              {PLAYLISTS.flatMap((playlist) => {
                const allowed = allowedPlaylist(
                  { views: [...playlist.views], everyS: DEFAULT_EVERY_S },
                  views.data.views,
                );
                return allowed && allowed.views.length > 1
                  ? [
                      <li key={playlist.label}>
                        <a href={playlistHref(allowed)}>{playlist.label}</a>
                      </li>,
                    ]
                  : [];
              })}
            </ul>
          </section>
        </div>
      )}
      <footer className={styles.footer}>
        <span>Rebound</span>
      </footer>
    </main>
  );
}
