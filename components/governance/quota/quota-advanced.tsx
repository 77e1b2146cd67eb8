import type { FieldErrors } from "../form-errors";
import styles from "../governance.module.css";
import { SelectField } from "../select-field";
import { TextField } from "../text-field";
import type { KueueDraft } from "./quota-model";

const RECLAIM = [
  { value: "Any", label: "Any (default: the lender always reclaims)" },
  { value: "LowerPriority", label: "Lower priority only" },
  { value: "Never", label: "Never" },
] as const satisfies ReadonlyArray<{ value: KueueDraft["reclaimWithinCohort"]; label: string }>;

const BORROW = [
  { value: "Never", label: "Never (default)" },
  { value: "LowerPriority", label: "Lower priority (fair share off only)" },
] as const satisfies ReadonlyArray<{ value: KueueDraft["borrowPolicy"]; label: string }>;

const QUEUEING = [
  { value: "BestEffortFIFO", label: "BestEffortFIFO (default)" },
  { value: "StrictFIFO", label: "StrictFIFO" },
] as const satisfies ReadonlyArray<{ value: KueueDraft["queueingStrategy"]; label: string }>;

const WITHIN = [
  { value: "", label: "From “Preempt team tasks” (default)" },
  { value: "LowerPriority", label: "Lower priority" },
  { value: "LowerOrNewerEqualPriority", label: "Lower, or equal and newer" },
  { value: "Never", label: "Never" },
] as const satisfies ReadonlyArray<{ value: KueueDraft["withinClusterQueue"]; label: string }>;

/**
 * Kueue's own ClusterQueue knobs for the team, collapsed by default: the defaults are HyperPod's, and each
 * field is the ClusterQueue field of the same name (docs/governance.md, "Advanced (Kueue) settings").
 */
export function QuotaAdvanced(props: {
  draft: KueueDraft;
  errors: FieldErrors;
  onChange: (next: KueueDraft) => void;
}) {
  const { draft, errors, onChange } = props;
  const set = <K extends keyof KueueDraft>(key: K, value: KueueDraft[K]) =>
    onChange({ ...draft, [key]: value });
  return (
    <details>
      <summary>Advanced (Kueue)</summary>
      <div className={styles.fields}>
        <SelectField
          id="quota-reclaim"
          label="Reclaim within cohort"
          value={draft.reclaimWithinCohort}
          options={RECLAIM}
          onChange={(value) => set("reclaimWithinCohort", value)}
          error={errors["kueue.reclaimWithinCohort"]}
          hint="Which borrowers of its guarantee the team's jobs may preempt"
        />
        <SelectField
          id="quota-borrow-within"
          label="Preempt while borrowing"
          value={draft.borrowPolicy}
          options={BORROW}
          onChange={(value) => set("borrowPolicy", value)}
          error={errors["kueue.borrowWithinCohort.policy"]}
        />
        <TextField
          id="quota-borrow-threshold"
          label="Preempt while borrowing: at most priority"
          inputMode="numeric"
          value={draft.maxPriorityThreshold}
          onChange={(value) => set("maxPriorityThreshold", value)}
          error={errors["kueue.borrowWithinCohort.maxPriorityThreshold"]}
          hint="Empty: any lower priority; else a weight 0–100"
        />
        <TextField
          id="quota-lending-limit"
          label="Lending limit (GPUs)"
          inputMode="numeric"
          value={draft.lendingLimit}
          onChange={(value) => set("lendingLimit", value)}
          error={errors["kueue.lendingLimit"]}
          hint="GPUs per instance type it lends at most; empty: all of its guarantee"
        />
        <SelectField
          id="quota-queueing"
          label="Queueing strategy"
          value={draft.queueingStrategy}
          options={QUEUEING}
          onChange={(value) => set("queueingStrategy", value)}
          error={errors["kueue.queueingStrategy"]}
        />
        <SelectField
          id="quota-within"
          label="Preemption within the team"
          value={draft.withinClusterQueue}
          options={WITHIN}
          onChange={(value) => set("withinClusterQueue", value)}
          error={errors["kueue.withinClusterQueue"]}
        />
      </div>
    </details>
  );
}
