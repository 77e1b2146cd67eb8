import type { RankHealth } from "@/server/domain/jobs/view-model";
import { HealthGlyph } from "./health-glyph";
import { HEALTH_ORDER, HEALTH_STYLE } from "./health-style";
import styles from "./jobs.module.css";

/**
 * The key to rank colours and marks, shared by the topology and the table. With `counts`, each entry shows
 * how many ranks are in that health (and healths with none are dimmed, not hidden, so the key never moves).
 */
export function HealthLegend({ counts }: { counts?: Readonly<Record<RankHealth, number>> }) {
  return (
    <ul className={styles.legend} aria-label="Rank health legend">
      {HEALTH_ORDER.map((health) => {
        const count = counts?.[health];
        return (
          <li
            key={health}
            className={count === 0 ? styles.legendEmpty : undefined}
            title={HEALTH_STYLE[health].description}
          >
            <HealthGlyph health={health} />
            <span>{HEALTH_STYLE[health].label}</span>
            {count === undefined ? null : (
              <span className={styles.legendCount}>{count.toLocaleString("en-US")}</span>
            )}
          </li>
        );
      })}
    </ul>
  );
}
