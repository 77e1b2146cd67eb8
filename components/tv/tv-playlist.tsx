"use client";

import { useEffect, useState } from "react";
import { TV_VIEW_TITLES } from "@/server/domain/access/share";
import type { Playlist } from "./playlist";
import styles from "./tv.module.css";
import { TvScreen } from "./tv-screen";

/**
 * Views in turn, each for `everyS` seconds, forever: one timer, and one view's stream open at a time (the
 * screen of the view shown is mounted afresh, so nothing of the previous view is kept).
 */
export function TvPlaylist({ playlist }: { playlist: Playlist }) {
  const [index, setIndex] = useState(0);
  const count = playlist.views.length;
  useEffect(() => {
    if (count < 2) return;
    const timer = setInterval(() => setIndex((current) => (current + 1) % count), playlist.everyS * 1000);
    return () => clearInterval(timer);
  }, [count, playlist.everyS]);
  const view = playlist.views[index % count] ?? playlist.views[0] ?? "cluster";
  const next = playlist.views[(index + 1) % count];
  const footer =
    count > 1 && next ? (
      <span className={styles.dots}>
        <span className="sr-only">
          View {(index % count) + 1} of {count}.
        </span>
        {playlist.views.map((one, position) => (
          <span
            aria-hidden="true"
            key={one}
            className={`${styles.dot} ${position === index % count ? styles.dotCurrent : ""}`}
          />
        ))}
        <span>Next: {TV_VIEW_TITLES[next]}</span>
      </span>
    ) : null;
  return <TvScreen key={view} view={view} footer={footer} />;
}
