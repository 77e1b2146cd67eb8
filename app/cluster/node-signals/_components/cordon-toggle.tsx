"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/lib/trpc/client";

type View = { version: number; cordonMovesPods: boolean; canEdit: boolean };

/**
 * "A cordon alone moves running pods": on, the cordon row replaces the job pods on a cordoned node now;
 * off (Kubernetes' meaning, the default), new pods avoid the node and running ones stay.
 */
export function CordonToggle({ view }: { view: View }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const save = useMutation(
    trpc.nodeSignals.setCordon.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.nodeSignals.pathKey() }),
    }),
  );
  return (
    <>
      <label>
        <input
          type="checkbox"
          checked={view.cordonMovesPods}
          disabled={!view.canEdit || save.isPending}
          onChange={(event) => save.mutate({ version: view.version, movesPods: event.target.checked })}
        />{" "}
        A cordon alone moves running pods
      </label>
      <p className="muted">
        {view.cordonMovesPods
          ? "On: the job pods on a cordoned node are replaced now."
          : "Off (as Kubernetes): new pods avoid a cordoned node; running pods stay."}
      </p>
      {save.isError ? (
        <p role="alert" className="form-error">
          Not saved: {save.error.message}
        </p>
      ) : null}
    </>
  );
}
