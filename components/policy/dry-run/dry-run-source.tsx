"use client";

import styles from "./dry-run.module.css";

/** Where a dry-run's log lines come from: pasted text, or a chosen rank's output since its attempt started. */
export type SourceDraft = {
  kind: "text" | "rank";
  text: string;
  /** Seconds between lines that carry no timestamp, as typed. */
  intervalSeconds: string;
  rank: number;
};

export const INITIAL_SOURCE: SourceDraft = {
  kind: "rank",
  text: "",
  intervalSeconds: "1",
  rank: 0,
};

/** 0 … count − 1. */
const rankNumbers = (count: number): number[] => Array.from({ length: count }, (_, rank) => rank);

/** The interval typed, in ms, or an error in words. */
export function intervalMsOf(typed: string): { ok: true; ms: number } | { ok: false; message: string } {
  const seconds = Number(typed.trim());
  if (typed.trim() === "" || !Number.isFinite(seconds) || seconds <= 0)
    return { ok: false, message: "expected seconds > 0, e.g. 1 or 0.5" };
  if (seconds > 3600) return { ok: false, message: "at most 3600 s between lines" };
  return { ok: true, ms: Math.max(1, Math.round(seconds * 1000)) };
}

/**
 * The dry-run's source: lines pasted with or without timestamps (untimed lines are spaced by the interval
 * on the simulated clock), or what a rank of the running job printed since its attempt started.
 */
export function DryRunSource(props: {
  value: SourceDraft;
  onChange: (next: SourceDraft) => void;
  ranks: number;
}) {
  const { value, onChange } = props;
  const interval = intervalMsOf(value.intervalSeconds);
  return (
    <div className={styles.source}>
      <fieldset className={styles.kinds}>
        <legend>Log lines from</legend>
        <label>
          <input
            type="radio"
            name="dry-run-source"
            checked={value.kind === "rank"}
            disabled={props.ranks === 0}
            onChange={() => onChange({ ...value, kind: "rank" })}
          />
          A rank of this job
        </label>
        <label>
          <input
            type="radio"
            name="dry-run-source"
            checked={value.kind === "text"}
            onChange={() => onChange({ ...value, kind: "text" })}
          />
          Pasted text
        </label>
      </fieldset>
      {value.kind === "rank" ? (
        <div className={styles.fields}>
          <div className={styles.field}>
            <label htmlFor="dry-run-rank">Rank</label>
            <select
              id="dry-run-rank"
              value={value.rank}
              onChange={(event) => onChange({ ...value, rank: Number(event.target.value) })}
            >
              {rankNumbers(props.ranks).map((rank) => (
                <option key={rank} value={rank}>
                  Rank {rank}
                </option>
              ))}
            </select>
          </div>
          <p className={`${styles.hint} ${styles.wide}`}>
            Everything the rank printed since its attempt started, each line at the time it arrived, up to
            now: a window still open is shown as a deadline, not a fault.
          </p>
        </div>
      ) : (
        <>
          <label className={styles.field}>
            Log lines
            <textarea
              className={styles.logInput}
              spellCheck={false}
              value={value.text}
              placeholder={"2026-01-02T03:04:05Z step=120 loss=2.34 throughput=1523.4\nstep=121 loss=nan …"}
              onChange={(event) => onChange({ ...value, text: event.target.value })}
            />
          </label>
          <label className={styles.field}>
            Seconds between lines without a timestamp
            <input
              type="text"
              inputMode="decimal"
              value={value.intervalSeconds}
              aria-invalid={interval.ok ? undefined : true}
              aria-describedby="dry-run-interval-message"
              onChange={(event) => onChange({ ...value, intervalSeconds: event.target.value })}
            />
            <span id="dry-run-interval-message" className={interval.ok ? styles.hint : styles.error}>
              {interval.ok ? "Lines with a timestamp use their own time." : interval.message}
            </span>
          </label>
        </>
      )}
    </div>
  );
}
