"use client";

import { useState } from "react";
import type { FieldErrors } from "@/components/governance/form-errors";
import { fieldErrorsOf } from "@/components/governance/form-errors";
import type { TvView } from "@/server/domain/access/share";
import {
  type CreateShareTokenInput,
  createShareTokenInputSchema,
} from "@/server/services/share-tokens/share-tokens.schema";

export type TokenDraft = {
  label: string;
  views: TvView[];
  allTeams: boolean;
  teamIds: string[];
  pairing: boolean;
};

const EMPTY: TokenDraft = { label: "", views: [], allTeams: true, teamIds: [], pairing: false };

const toggle = <T>(list: readonly T[], item: T, on: boolean): T[] =>
  on ? [...list.filter((x) => x !== item), item] : list.filter((x) => x !== item);

/**
 * The create form's draft, checked with the router's own schema as it is edited (messages show once a save
 * was tried). `input` is the parsed input when the draft is valid.
 */
export function useTokenDraft() {
  const [draft, setDraft] = useState<TokenDraft>(EMPTY);
  const [tried, setTried] = useState(false);
  const parsed = createShareTokenInputSchema.safeParse({
    ...draft,
    teamIds: draft.allTeams ? [] : draft.teamIds,
  });
  const errors: FieldErrors = tried && !parsed.success ? fieldErrorsOf(parsed.error.issues) : {};
  const input: CreateShareTokenInput | null = parsed.success ? parsed.data : null;
  return {
    draft,
    errors,
    input,
    tried: () => setTried(true),
    reset: () => {
      setDraft(EMPTY);
      setTried(false);
    },
    setLabel: (label: string) => setDraft((d) => ({ ...d, label })),
    setView: (view: TvView, on: boolean) => setDraft((d) => ({ ...d, views: toggle(d.views, view, on) })),
    setAllTeams: (allTeams: boolean) => setDraft((d) => ({ ...d, allTeams })),
    setTeam: (id: string, on: boolean) => setDraft((d) => ({ ...d, teamIds: toggle(d.teamIds, id, on) })),
    setPairing: (pairing: boolean) => setDraft((d) => ({ ...d, pairing })),
  };
}

export type TokenDraftState = ReturnType<typeof useTokenDraft>;
