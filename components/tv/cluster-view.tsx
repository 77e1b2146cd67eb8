import type { TeamGpuRow } from "@/server/domain/tv/cluster";
import type { ClusterFrame } from "@/server/services/tv/frame";
import { JobCountTiles } from "./job-counts";
import styles from "./tv.module.css";

function TeamBar({ team, scale }: { team: TeamGpuRow; scale: number }) {
  const over = team.used > team.quota;
  const width = (value: number) => `${Math.min(100, (value / scale) * 100)}%`;
  return (
    <li className={styles.team}>
      <span className={styles.teamName}>{team.displayName}</span>
      <div className={styles.bar} aria-hidden="true">
        <div
          className={`${styles.barUsed} ${over ? styles.barOver : ""}`}
          style={{ width: width(team.used) }}
        />
        {team.quota > 0 ? (
          // Kept inside the bar at 100 % too: the mark's own width is taken off in proportion.
          <div
            className={styles.barQuota}
            style={{ left: width(team.quota), transform: `translateX(-${width(team.quota)})` }}
          />
        ) : null}
      </div>
      <span className={styles.teamFigures}>
        {team.used} / {team.quota} GPUs
        {team.borrowed > 0 ? <span className={styles.warn}> (+{team.borrowed} borrowed)</span> : null}
      </span>
    </li>
  );
}

/** GPUs in use against quota per team, and the jobs running, pending and failed. */
export function ClusterView({ frame }: { frame: ClusterFrame }) {
  const scale = Math.max(1, ...frame.teams.map((team) => Math.max(team.used, team.quota)));
  return (
    <>
      <JobCountTiles counts={frame.counts}>
        <div className={styles.tile}>
          <dt>GPUs in use of {frame.gpus.capacity}</dt>
          <dd>{frame.gpus.inUse}</dd>
        </div>
      </JobCountTiles>
      <section aria-labelledby="tv-teams">
        <h2 id="tv-teams" className={styles.sectionTitle}>
          GPUs in use against quota, by team (the white mark is the quota)
        </h2>
        {frame.teams.length === 0 ? (
          <p className={styles.more}>No teams to show.</p>
        ) : (
          <ul className={styles.teams}>
            {frame.teams.map((team) => (
              <TeamBar key={team.team} team={team} scale={scale} />
            ))}
          </ul>
        )}
        {frame.moreTeams > 0 ? <p className={styles.more}>and {frame.moreTeams} more teams</p> : null}
      </section>
    </>
  );
}
