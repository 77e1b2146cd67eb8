"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/lib/trpc/client";
import type { LibraryPolicy, VersionChoice } from "./types";

/**
 * Saving a draft into the library: the next version of `target` (from the version it was read at, so a
 * newer save in between is refused naming who made it), or version 1 of a new policy `newName` when there
 * is no target. The library's queries are read again once it is saved.
 */
export function useSaveVersion(opts: {
  teamId: string;
  newName: string;
  onSaved: (saved: VersionChoice) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(trpc.policies.create.mutationOptions());
  const save = useMutation(trpc.policies.save.mutationOptions());
  const done = async (saved: VersionChoice) => {
    await queryClient.invalidateQueries({ queryKey: trpc.policies.pathKey() });
    opts.onSaved(saved);
  };
  const submit = (draft: { target: LibraryPolicy | null; yaml: string; message: string }) => {
    create.reset();
    save.reset();
    const { target, yaml, message } = draft;
    if (target === null) {
      create.mutate(
        { teamId: opts.teamId, name: opts.newName, yaml, message },
        { onSuccess: (out) => done({ policyId: out.id, name: opts.newName, version: out.version }) },
      );
      return;
    }
    save.mutate(
      { id: target.id, yaml, message, baseVersion: target.latest.version },
      { onSuccess: (out) => done({ policyId: target.id, name: target.name, version: out.version }) },
    );
  };
  return { submit, pending: create.isPending || save.isPending, error: create.error ?? save.error };
}
