"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import { type SaveRefusal, saveRefusal } from "./save-refusal";
import { type TemplateChoice, TemplatePicker } from "./template-picker";

type Team = { id: string; name: string };
type Template = TemplateChoice & { yaml: string };

/**
 * "New policy" from a template: the team (those the user may write policies for), a name, the template.
 * Created as version 1 and opened in the editor; a name the team already uses is refused beside the name.
 */
export function NewPolicyForm(props: { teams: readonly Team[] }) {
  const trpc = useTRPC();
  const templates = useQuery(trpc.policies.templates.queryOptions());
  if (templates.isPending) return <LoadingState label="the templates" />;
  if (templates.isError)
    return (
      <ErrorState
        title="Could not load the templates"
        error={templates.error}
        onRetry={() => templates.refetch()}
      />
    );
  return <NewPolicyFields teams={props.teams} templates={templates.data} />;
}

function NewPolicyFields(props: { teams: readonly Team[]; templates: readonly Template[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [teamId, setTeamId] = useState(props.teams[0]?.id ?? "");
  const [name, setName] = useState("");
  const [templateId, setTemplateId] = useState(props.templates[0]?.id ?? "");
  const [refusal, setRefusal] = useState<SaveRefusal | null>(null);
  const create = useMutation(
    trpc.policies.create.mutationOptions({
      onSuccess: async (created) => {
        await queryClient.invalidateQueries({ queryKey: trpc.policies.list.pathKey() });
        router.push(`/policies/${created.id}`);
      },
      onError: (error) => setRefusal(saveRefusal(error)),
    }),
  );
  const template = props.templates.find((each) => each.id === templateId);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (template === undefined) return;
    setRefusal(null);
    const message = `from the ${template.name} template`;
    create.mutate({ teamId, name, description: template.summary, yaml: template.yaml, message });
  };
  const nameError = refusal?.fields.name;
  return (
    <form className="form" onSubmit={submit} aria-label="New policy">
      <div className="filters">
        <label>
          Team
          <select value={teamId} onChange={(event) => setTeamId(event.target.value)}>
            {props.teams.map((team) => (
              <option key={team.id} value={team.id}>
                {team.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Name
          <input
            value={name}
            required
            maxLength={80}
            onChange={(event) => setName(event.target.value)}
            aria-invalid={nameError ? true : undefined}
            aria-describedby={nameError ? "new-policy-name-error" : undefined}
          />
        </label>
        {nameError ? (
          <span id="new-policy-name-error" className="form-error">
            {nameError}
          </span>
        ) : null}
      </div>
      <TemplatePicker templates={props.templates} value={templateId} onChange={setTemplateId} />
      {refusal && !nameError ? (
        <p role="alert" className="form-error">
          Not created: {refusal.message}
        </p>
      ) : null}
      <div className="actions">
        <button type="submit" className="button" disabled={create.isPending || name.trim() === ""}>
          {create.isPending ? "Creating…" : `Create from ${template?.name ?? "template"}`}
        </button>
      </div>
    </form>
  );
}
