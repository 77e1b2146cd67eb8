"use client";

import { useLayoutEffect, useMemo, useRef, useState } from "react";
import type { LogLine } from "@/server/services/jobs/queries";
import styles from "./jobs.module.css";
import { atBottom, type LogSegment, searchLog } from "./rank-log-model";

type RankLogProps = {
  rank: number;
  lines: readonly LogLine[];
  /** The rank's whole log as a file (rank-log-model.ts rankLogDownloadHref). */
  downloadHref: string;
};

function Segments({ segments }: { segments: LogSegment[] }) {
  return segments.map((segment, index) =>
    segment.hit ? (
      // biome-ignore lint/suspicious/noArrayIndexKey: a line's pieces have no identity but their position
      <mark key={index} className={styles.searchHit}>
        {segment.text}
      </mark>
    ) : (
      segment.text
    ),
  );
}

/**
 * A rank's log tail as a terminal shows it: newest line at the bottom, followed as lines arrive until the
 * user scrolls up ("Jump to newest" follows again); a search box that keeps the lines containing its text
 * (plain, case-insensitive); lines that make a log rule act (server/services/jobs/log-matcher-rules.ts)
 * marked, with the rule in their title; and the rank's whole log to download.
 */
export function RankLog({ rank, lines, downloadHref }: RankLogProps) {
  const [query, setQuery] = useState("");
  const [following, setFollowing] = useState(true);
  const box = useRef<HTMLPreElement>(null);
  const shown = useMemo(() => searchLog(lines, query), [lines, query]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: new lines (or a new search) are what move the view
  useLayoutEffect(() => {
    const element = box.current;
    if (following && element) element.scrollTop = element.scrollHeight;
  }, [following, shown]);

  const searching = query.trim() !== "";
  return (
    <div className={styles.rankLog}>
      <div className={styles.logToolbar}>
        <input
          type="search"
          className={styles.filter}
          placeholder="Search the log"
          aria-label={`Search the log of rank ${rank}`}
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
        <span className="muted" aria-live="polite">
          {searching
            ? `${shown.length} of ${lines.length} lines contain “${query.trim()}”`
            : `the newest ${lines.length} lines`}
        </span>
        <a className={`button button-secondary ${styles.download}`} href={downloadHref} download>
          Download log
        </a>
      </div>
      <div className={styles.logBox}>
        <pre
          ref={box}
          className="log-view"
          role="log"
          aria-label={`Log of rank ${rank}`}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling log must be reachable by keyboard (WCAG 2.1.1)
          tabIndex={0}
          onScroll={(event) => setFollowing(atBottom(event.currentTarget))}
        >
          {shown.map(({ line, index, segments }) =>
            line.matches.length > 0 ? (
              <mark key={index} className={styles.ruleLine} title={`log rule: ${line.matches.join("; ")}`}>
                <Segments segments={segments} />
                {"\n"}
              </mark>
            ) : (
              <span key={index}>
                <Segments segments={segments} />
                {"\n"}
              </span>
            ),
          )}
        </pre>
        {following ? null : (
          <button type="button" className={`button ${styles.jumpNewest}`} onClick={() => setFollowing(true)}>
            Jump to newest
          </button>
        )}
      </div>
      {searching && shown.length === 0 ? <p className="muted">No line contains “{query.trim()}”.</p> : null}
    </div>
  );
}
