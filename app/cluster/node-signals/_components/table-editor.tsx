"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { stringify } from "yaml";
import { useTRPC } from "@/lib/trpc/client";
import type { NodeSignalTable } from "@/server/domain/node-health/signal-table.schema";
import { checkNodeSignalText } from "@/server/domain/node-health/table";

type View = { version: number; rules: NodeSignalTable; isDefault: boolean };

/** The whole table as YAML, checked as typed (the server checks again), saved or reset under its version. */
export function TableEditor({ view }: { view: View }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [text, setText] = useState(() => stringify(view.rules));
  const check = checkNodeSignalText(text);
  const done = { onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.nodeSignals.pathKey() }) };
  const save = useMutation(trpc.nodeSignals.update.mutationOptions(done));
  const reset = useMutation(trpc.nodeSignals.reset.mutationOptions(done));
  const failed = save.error ?? reset.error;
  return (
    <form
      className="form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        if (check.ok) save.mutate({ version: view.version, text });
      }}
    >
      <label htmlFor="node-signals-yaml">Node-signal table (YAML)</label>
      <textarea
        id="node-signals-yaml"
        rows={24}
        spellCheck={false}
        value={text}
        onChange={(event) => setText(event.target.value)}
        style={{ fontFamily: "ui-monospace, monospace", fontSize: 13 }}
      />
      {check.ok ? (
        <p className="muted">{check.table.length} rows, valid.</p>
      ) : (
        <p className="form-error" role="alert">
          {check.message}
        </p>
      )}
      {failed ? (
        <p className="form-error" role="alert">
          Not saved: {failed.message}
        </p>
      ) : null}
      <div className="actions">
        <button type="submit" className="button" disabled={!check.ok || save.isPending}>
          Save table
        </button>
        <button
          type="button"
          className="button button-secondary"
          disabled={view.isDefault || reset.isPending}
          onClick={() => reset.mutate({ version: view.version })}
        >
          Reset to defaults
        </button>
      </div>
    </form>
  );
}
