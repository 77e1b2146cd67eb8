"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { serverRefusal } from "@/components/governance/form-errors";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import type { ChannelView } from "@/server/services/notifications/notifications.schema";
import { AddChannelForm } from "./add-channel-form";
import { DeliveryLog } from "./delivery-log";
import { SubscriptionsEditor } from "./subscriptions-editor";

function ChannelCard(props: { team: string; channel: ChannelView; canEdit: boolean; onChanged: () => void }) {
  const { team, channel } = props;
  const trpc = useTRPC();
  const [message, setMessage] = useState<string | null>(null);
  const test = useMutation(
    trpc.notifications.sendTest.mutationOptions({
      onSuccess: (row) =>
        setMessage(row?.status === "sent" ? "Test sent." : `Test not delivered yet: ${row?.lastError ?? ""}`),
      onError: (error) => setMessage(serverRefusal(error).message),
      onSettled: props.onChanged,
    }),
  );
  const remove = useMutation(
    trpc.notifications.deleteChannel.mutationOptions({
      onError: (error) => setMessage(serverRefusal(error).message),
      onSettled: props.onChanged,
    }),
  );
  return (
    <section className="card" aria-label={`Channel ${channel.name}`}>
      <h3>
        {channel.name}{" "}
        <span className="muted">
          ({channel.kind}, {channel.urlHint})
        </span>
      </h3>
      <SubscriptionsEditor
        team={team}
        channelId={channel.id}
        channelName={channel.name}
        subscriptions={channel.subscriptions}
        canEdit={props.canEdit}
        onChanged={props.onChanged}
      />
      {props.canEdit ? (
        <div>
          <button
            type="button"
            className="button"
            disabled={test.isPending}
            onClick={() => test.mutate({ team, channelId: channel.id })}
          >
            Send test
          </button>{" "}
          <button
            type="button"
            className="button button-secondary"
            disabled={remove.isPending}
            onClick={() => remove.mutate({ team, channelId: channel.id })}
          >
            Delete channel
          </button>
        </div>
      ) : null}
      {message ? <p role="status">{message}</p> : null}
    </section>
  );
}

/**
 * A team's notifications: its channels with their subscriptions, "send test", and the delivery log. Its
 * team admins and cluster admins edit; its members read (no URL is ever shown, only a hint).
 */
export function TeamNotifications({ team }: { team: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const view = useQuery(trpc.notifications.get.queryOptions({ team }));
  const changed = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.notifications.get.queryKey({ team }) }),
      queryClient.invalidateQueries({ queryKey: trpc.notifications.deliveries.queryKey() }),
    ]);
  if (view.isPending) return <LoadingState label="notifications" />;
  if (view.isError)
    return (
      <ErrorState title="Could not load notifications" error={view.error} onRetry={() => view.refetch()} />
    );
  const { channels, canEdit } = view.data;
  return (
    <div className="stack">
      <h1>Notifications: {team}</h1>
      <p>
        <Link href={`/governance/teams/${team}`}>Back to the team</Link>
      </p>
      <section className="card" aria-labelledby="channels-heading">
        <h2 id="channels-heading">Channels</h2>
        {channels.length === 0 ? <EmptyState>No channels yet.</EmptyState> : null}
        {channels.map((channel) => (
          <ChannelCard key={channel.id} team={team} channel={channel} canEdit={canEdit} onChanged={changed} />
        ))}
        {canEdit ? null : <p className="muted">Read only: the team's admins change notifications.</p>}
      </section>
      {canEdit ? (
        <section className="card" aria-labelledby="add-channel-heading">
          <h2 id="add-channel-heading">Add a channel</h2>
          <AddChannelForm team={team} onAdded={changed} />
        </section>
      ) : null}
      <section className="card" aria-labelledby="deliveries-heading">
        <h2 id="deliveries-heading">Delivery log</h2>
        <DeliveryLog team={team} />
      </section>
    </div>
  );
}
