"use client";

import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { type ServerRefusal, serverRefusal } from "@/components/governance/form-errors";
import { SelectField } from "@/components/governance/select-field";
import { TextField } from "@/components/governance/text-field";
import { useTRPC } from "@/lib/trpc/client";
import type { ChannelKind } from "@/server/services/notifications/notifications.schema";

const KINDS: ReadonlyArray<{ value: ChannelKind; label: string }> = [
  { value: "alertmanager", label: "Alertmanager webhook (v4 JSON)" },
  { value: "slack", label: "Slack incoming webhook" },
];

/** Adds a channel: the URL is sent once and never shown again (the list shows its host and last 4). */
export function AddChannelForm(props: { team: string; onAdded: () => void }) {
  const trpc = useTRPC();
  const [name, setName] = useState("");
  const [kind, setKind] = useState<ChannelKind>("slack");
  const [url, setUrl] = useState("");
  const [refusal, setRefusal] = useState<ServerRefusal | null>(null);
  const create = useMutation(
    trpc.notifications.createChannel.mutationOptions({
      onSuccess: () => {
        setRefusal(null);
        setName("");
        setUrl("");
        props.onAdded();
      },
      onError: (error) => setRefusal(serverRefusal(error)),
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ team: props.team, name, kind, url });
  };
  return (
    <form className="stack" onSubmit={submit} aria-label="Add channel">
      <TextField
        id="channel-name"
        label="Name"
        value={name}
        onChange={setName}
        error={refusal?.fields.name}
      />
      <SelectField id="channel-kind" label="Format" value={kind} options={KINDS} onChange={setKind} />
      <TextField
        id="channel-url"
        label="Webhook URL"
        value={url}
        onChange={setUrl}
        error={refusal?.fields.url}
        hint="Kept secret: shown only as its host and last 4 characters once saved."
      />
      {refusal ? (
        <p role="alert" className="form-error">
          Not added: {refusal.message}
        </p>
      ) : null}
      <div>
        <button type="submit" className="button" disabled={create.isPending}>
          Add channel
        </button>
      </div>
    </form>
  );
}
