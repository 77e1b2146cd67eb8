"use client";

import { TV_VIEW_TITLES, TV_VIEWS } from "@/server/domain/access/share";
import styles from "./share-tokens.module.css";
import type { TokenDraftState } from "./use-token-draft";

/** The views a token opens and the teams it shows: checkboxes in labelled groups, each with its message. */
export function ScopeFields(props: {
  form: TokenDraftState;
  teams: ReadonlyArray<{ id: string; name: string; displayName: string }>;
}) {
  const { draft, errors } = props.form;
  const viewsError = errors.views ?? Object.entries(errors).find(([key]) => key.startsWith("views."))?.[1];
  const teamsError =
    errors.teamIds ?? Object.entries(errors).find(([key]) => key.startsWith("teamIds."))?.[1];
  return (
    <>
      <fieldset className={styles.group} aria-describedby={viewsError ? "token-views-message" : undefined}>
        <legend>Views (the link opens the first one chosen)</legend>
        {TV_VIEWS.map((view) => (
          <label key={view}>
            <input
              type="checkbox"
              checked={draft.views.includes(view)}
              onChange={(event) => props.form.setView(view, event.target.checked)}
            />
            {TV_VIEW_TITLES[view]}
          </label>
        ))}
        {viewsError ? (
          <span id="token-views-message" className={styles.error}>
            {viewsError}
          </span>
        ) : null}
      </fieldset>
      <fieldset className={styles.group} aria-describedby={teamsError ? "token-teams-message" : undefined}>
        <legend>Teams whose data it shows</legend>
        <label>
          <input
            type="radio"
            name="token-teams"
            checked={draft.allTeams}
            onChange={() => props.form.setAllTeams(true)}
          />
          All teams
        </label>
        <label>
          <input
            type="radio"
            name="token-teams"
            checked={!draft.allTeams}
            onChange={() => props.form.setAllTeams(false)}
          />
          Chosen teams
        </label>
        {draft.allTeams ? null : (
          <fieldset className={styles.indent}>
            <legend className="sr-only">Chosen teams</legend>
            {props.teams.map((team) => (
              <label key={team.id}>
                <input
                  type="checkbox"
                  checked={draft.teamIds.includes(team.id)}
                  onChange={(event) => props.form.setTeam(team.id, event.target.checked)}
                />
                {team.displayName}
              </label>
            ))}
          </fieldset>
        )}
        {teamsError ? (
          <span id="token-teams-message" className={styles.error}>
            {teamsError}
          </span>
        ) : null}
      </fieldset>
    </>
  );
}
