"use client";

import type { ReactNode } from "react";
import { formatClock } from "@/components/jobs/format";
import { useNow } from "@/components/jobs/use-now";
import { TV_VIEW_TITLES, type TvView } from "@/server/domain/access/share";
import type { TvFrame } from "@/server/services/tv/frame";
import { ClusterView } from "./cluster-view";
import { IncidentsView } from "./incidents-view";
import { JobsView } from "./jobs-view";
import { ReliabilityView } from "./reliability-view";
import type { TvStreamState } from "./stream-state";
import styles from "./tv.module.css";
import { TvEnded } from "./tv-ended";
import { useTvFrame } from "./use-tv-frame";

/** The wall clock, ticking on its own so the view under it re-renders only when a frame arrives. */
function Clock() {
  const now = useNow();
  return (
    <p className={styles.clock} suppressHydrationWarning>
      {formatClock(now)}
    </p>
  );
}

function FrameBody({ frame }: { frame: TvFrame }) {
  switch (frame.view) {
    case "cluster":
      return <ClusterView frame={frame} />;
    case "jobs":
      return <JobsView frame={frame} />;
    case "reliability":
      return <ReliabilityView frame={frame} />;
    case "incidents":
      return <IncidentsView frame={frame} />;
    default:
      return frame satisfies never;
  }
}

function Banner({ state, notice }: { state: TvStreamState; notice: string | null }) {
  const text =
    state.kind === "reconnecting"
      ? "Reconnecting… showing the last update"
      : notice
        ? `The cluster cannot be read now: ${notice}. Showing the last update.`
        : null;
  return (
    <div className={styles.bannerSlot} role="status">
      {text ? <p className={styles.banner}>{text}</p> : null}
    </div>
  );
}

/**
 * One TV view, full screen: title and clock, the view's latest frame, and the stream's state. `footer`:
 * what a playlist adds (which view is next).
 */
export function TvScreen({ view, footer }: { view: TvView; footer?: ReactNode }) {
  const { frame, notice, state } = useTvFrame(view);
  return (
    <main className={styles.screen} aria-labelledby="tv-title">
      <header className={styles.header}>
        <h1 id="tv-title" className={styles.title}>
          {TV_VIEW_TITLES[view]}
        </h1>
        <Clock />
      </header>
      <Banner state={state} notice={notice} />
      {state.kind === "ended" ? (
        <TvEnded code={state.code} message={state.message} />
      ) : frame === null ? (
        <p className={styles.message}>Connecting…</p>
      ) : (
        <div className={styles.body}>
          <FrameBody frame={frame} />
        </div>
      )}
      <footer className={styles.footer}>
        <span suppressHydrationWarning>{frame ? `Updated ${formatClock(frame.generatedAt)}` : ""}</span>
        {footer}
        <span className={styles.footerEnd}>
          {frame ? `Rebound · build ${frame.build.slice(0, 12)}` : "Rebound"}
        </span>
      </footer>
    </main>
  );
}
