"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/lib/trpc/client";
import styles from "./policy.module.css";
import type { VersionChoice } from "./types";

/**
 * Picks a saved version from the team's library: a policy, then one of its versions (newest first).
 * Changing the policy picks its latest version.
 */
export function VersionPicker(props: {
  teamId: string;
  value: VersionChoice | null;
  onChange: (choice: VersionChoice | null) => void;
}) {
  const trpc = useTRPC();
  const list = useQuery(trpc.policies.list.queryOptions({ teamId: props.teamId }));
  const policyId = props.value?.policyId ?? "";
  const detail = useQuery({ ...trpc.policies.get.queryOptions({ id: policyId }), enabled: policyId !== "" });
  if (list.isError) return <p role="alert">Could not list the team's policies: {list.error.message}</p>;
  const policies = list.data ?? [];
  return (
    <div className={styles.fields}>
      <div className={styles.field}>
        <label htmlFor="deploy-policy">Library policy</label>
        <select
          id="deploy-policy"
          value={policyId}
          disabled={list.isPending}
          onChange={(event) => {
            const policy = policies.find((candidate) => candidate.id === event.target.value);
            props.onChange(
              policy ? { policyId: policy.id, name: policy.name, version: policy.latest.version } : null,
            );
          }}
        >
          <option value="">{policies.length === 0 ? "No saved policy yet" : "Pick a policy"}</option>
          {policies.map((policy) => (
            <option key={policy.id} value={policy.id}>
              {policy.name}
            </option>
          ))}
        </select>
      </div>
      <div className={styles.field}>
        <label htmlFor="deploy-version">Version</label>
        <select
          id="deploy-version"
          value={props.value?.version ?? ""}
          disabled={!props.value || !detail.data}
          onChange={(event) =>
            props.value && props.onChange({ ...props.value, version: Number(event.target.value) })
          }
        >
          {props.value && !detail.data ? (
            <option value={props.value.version}>v{props.value.version}</option>
          ) : null}
          {(detail.data?.versions ?? []).map((version) => (
            <option key={version.version} value={version.version}>
              v{version.version} · {version.author}
              {version.message ? ` · ${version.message}` : ""}
            </option>
          ))}
        </select>
      </div>
    </div>
  );
}
