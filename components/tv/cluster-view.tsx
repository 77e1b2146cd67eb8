import type { TeamGpuRow } from "@/server/domain/tv/cluster";
import type { ClusterFrame } from "@/server/services/tv/frame";
import { JobCountTiles } from "./job-counts";
import styles from "./tv.module.css";

function TeamBar({ team, scale }: { team: TeamGpuRow; scale: number }) {
  const quota = team.quota;
  const over = quota !== null && team.used > quota;
  const width = (value: number) => `${Math.min(100, (value / scale) * 100)}%`;
  return (
    <li className={styles.team}>
      <span className={styles.teamName}>{team.displayName}</span>
      <div className={styles.bar} aria-hidden="true">
        <div
          className={`${styles.barUsed} ${over ? styles.barOver : ""}`}
          style={{ width: width(team.used) }}
        />
        {quota !== null && quota > 0 ? (
          // Kept inside the bar at 100 % too: the mark's own width is taken off in proportion.
          <div
            className={styles.barQuota}
            style={{ left: width(quota), transform: `translateX(-${width(quota)})` }}
          />
        ) : null}
      </div>
      <span className={styles.teamFigures}>
        {quota === null ? `${team.used} GPUs` : `${team.used} / ${quota} GPUs`}
        {team.borrowed > 0 ? <span className={styles.warn}> (+{team.borrowed} borrowed)</span> : null}
      </span>
    </li>
  );
}

/**
 * GPUs in use against quota per team, and the jobs running, pending and failed. The tile's "in use" is the
 * bars' sum (server/domain/tv/cluster.ts: clusterGpus), so the two never disagree.
 */
export function ClusterView({ frame }: { frame: ClusterFrame }) {
  const scale = Math.max(1, ...frame.teams.map((team) => Math.max(team.used, team.quota ?? 0)));
  return (
    <>
      <JobCountTiles counts={frame.counts}>
        <div className={styles.tile}>
          <dt>GPUs in use of {frame.gpus.capacity}</dt>
          <dd>{frame.gpus.inUse}</dd>
        </div>
      </JobCountTiles>
      <section aria-labelledby="tv-teams" className={styles.fill}>
        <h2 id="tv-teams" className={styles.sectionTitle}>
          GPUs in use against quota, by team (the white mark is the quota)
        </h2>
        {frame.teams.length === 0 ? (
          <div className={styles.allClearPanel}>
            <p className={styles.more}>No teams to show.</p>
          </div>
        ) : (
          <ul className={styles.teams}>
            {frame.teams.map((team) => (
              <TeamBar key={team.team} team={team} scale={scale} />
            ))}
          </ul>
        )}
        {frame.moreTeams > 0 ? (
          <p className={styles.more}>
            and {frame.moreTeams} more teams using {frame.moreTeamsGpus} GPUs
          </p>
        ) : null}
      </section>
    </>
  );
}
