import type { QuotaView } from "@/server/services/governance/governance.schema";
import type { FieldErrors } from "../form-errors";
import styles from "../governance.module.css";
import { SelectField } from "../select-field";
import { TextField } from "../text-field";
import type { QuotaDraft } from "./quota-model";

const ACTIVATION = [
  { value: "Enabled", label: "Enabled" },
  { value: "Disabled", label: "Disabled (admits nothing new)" },
] as const satisfies ReadonlyArray<{ value: QuotaView["activation"]; label: string }>;

const STRATEGY = [
  { value: "LendAndBorrow", label: "Lend and borrow" },
  { value: "Lend", label: "Lend only" },
  { value: "DontLend", label: "Don't lend" },
] as const satisfies ReadonlyArray<{ value: QuotaView["strategy"]; label: string }>;

const PREEMPT = [
  { value: "LowerPriority", label: "Lower priority (same team)" },
  { value: "Never", label: "Never" },
] as const satisfies ReadonlyArray<{ value: QuotaView["preemptTeamTasks"]; label: string }>;

/** The quota's scalar settings (HyperPod ComputeQuota: sharing, borrow limit, preemption, weight, state). */
export function QuotaFields(props: {
  draft: QuotaDraft;
  errors: FieldErrors;
  onChange: (next: QuotaDraft) => void;
}) {
  const { draft, errors, onChange } = props;
  const set = <K extends keyof QuotaDraft>(key: K, value: QuotaDraft[K]) =>
    onChange({ ...draft, [key]: value });
  return (
    <div className={styles.fields}>
      <SelectField
        id="quota-activation"
        label="Activation"
        value={draft.activation}
        options={ACTIVATION}
        onChange={(value) => set("activation", value)}
        error={errors.activation}
      />
      <SelectField
        id="quota-strategy"
        label="Sharing strategy"
        value={draft.strategy}
        options={STRATEGY}
        onChange={(value) => set("strategy", value)}
        error={errors.strategy}
      />
      <TextField
        id="quota-borrow-limit"
        label="Borrow limit (%)"
        inputMode="numeric"
        value={draft.borrowLimitPercent}
        onChange={(value) => set("borrowLimitPercent", value)}
        error={errors.borrowLimitPercent}
        hint="Percent of the guarantee it may borrow, ≥ 1 (no upper cap)"
      />
      <SelectField
        id="quota-preempt"
        label="Preempt team tasks"
        value={draft.preemptTeamTasks}
        options={PREEMPT}
        onChange={(value) => set("preemptTeamTasks", value)}
        error={errors.preemptTeamTasks}
      />
      <TextField
        id="quota-weight"
        label="Fair-share weight"
        inputMode="numeric"
        value={draft.fairShareWeight}
        onChange={(value) => set("fairShareWeight", value)}
        error={errors.fairShareWeight}
        hint="0–100; used when fair share is on"
      />
    </div>
  );
}
