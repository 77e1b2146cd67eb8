import type { RankView } from "@/server/domain/jobs/view-model";
import { formatAgo, formatLoss, formatNumber } from "./format";
import { HealthGlyph } from "./health-glyph";
import { healthTextColor } from "./health-style";
import styles from "./jobs.module.css";
import { healthText } from "./rank-table-model";

/**
 * The hover card over the topology canvas: one element, positioned next to the hovered cell (flipped to
 * its left near the right edge). Not focusable and aria-hidden: the rank table carries the same data for
 * keyboard and screen-reader users.
 */
export function RankTooltip(props: { rank: RankView; now: number; x: number; y: number; flip: boolean }) {
  const { rank, now, x, y, flip } = props;
  return (
    <div
      className={styles.tooltip}
      style={{ left: x, top: y, transform: flip ? "translateX(-100%)" : undefined }}
      aria-hidden="true"
    >
      <div className={styles.tooltipTitle}>
        Rank {rank.rank}
        <span className={styles.healthText} style={{ color: healthTextColor(rank.health) }}>
          <HealthGlyph health={rank.health} /> {healthText(rank, now)}
        </span>
      </div>
      <dl className={styles.tooltipFields}>
        <dt>Node</dt>
        <dd>{rank.node ?? "—"}</dd>
        <dt>Pod</dt>
        <dd>{rank.pod}</dd>
        <dt>State</dt>
        <dd>
          {rank.state}
          {rank.restarts > 0 ? ` · ${rank.restarts} restarts` : ""}
        </dd>
        <dt>Progress</dt>
        <dd>{rank.lastProgressAt == null ? "none yet" : formatAgo(rank.lastProgressAt, now)}</dd>
        <dt>Step</dt>
        <dd>{formatNumber(rank.step, 0)}</dd>
        <dt>Loss</dt>
        <dd>{formatLoss(rank.loss)}</dd>
        <dt>Throughput</dt>
        <dd>{formatNumber(rank.throughput, 1)}</dd>
      </dl>
      {rank.lastLine ? <pre className={styles.tooltipLine}>{rank.lastLine}</pre> : null}
    </div>
  );
}
