import { z } from "zod";
import { TV_VIEWS, type TvView } from "@/server/domain/access/share";
import { normalizePairingCode } from "@/server/services/share-tokens/pairing-code";

/** The most teams one token may name (a wall screen shows a handful). */
export const MAX_TOKEN_TEAMS = 100;

export const shareTokenLabelSchema = z
  .string()
  .trim()
  .min(1, "give the token a label, e.g. where the screen hangs")
  .max(80, "at most 80 characters");

export const shareTokenViewsSchema = z
  .array(z.enum(TV_VIEWS, { error: `expected one of ${TV_VIEWS.join(", ")}` }))
  .min(1, "choose at least one view")
  .refine((views) => new Set(views).size === views.length, "each view once");

/**
 * A new token: its label, the TV views it opens (the first is the one its link opens), and the teams whose
 * data it shows (all, or those chosen). `pairing`: no secret now, a short code a TV redeems within 10 minutes.
 */
export const createShareTokenInputSchema = z
  .object({
    label: shareTokenLabelSchema,
    views: shareTokenViewsSchema,
    allTeams: z.boolean(),
    teamIds: z
      .array(z.uuid({ error: "expected a team id" }))
      .max(MAX_TOKEN_TEAMS, `at most ${MAX_TOKEN_TEAMS} teams`)
      .refine((ids) => new Set(ids).size === ids.length, "each team once"),
    pairing: z.boolean().default(false),
  })
  .superRefine((input, ctx) => {
    if (!input.allTeams && input.teamIds.length === 0)
      ctx.addIssue({ code: "custom", path: ["teamIds"], message: "choose at least one team, or all teams" });
    if (input.allTeams && input.teamIds.length > 0)
      ctx.addIssue({ code: "custom", path: ["teamIds"], message: "all teams are shared: choose no team" });
  });
export type CreateShareTokenInput = z.infer<typeof createShareTokenInputSchema>;
export type CreateShareTokenForm = z.input<typeof createShareTokenInputSchema>;

export const revokeShareTokenInputSchema = z.object({ id: z.uuid({ error: "expected a token id" }) });

export const PAIRING_CODE_MESSAGE = "expected the 8-character code shown on the console, like ABCD-EFGH";

/** A typed pairing code: case, spaces and the dash do not matter. */
export const pairShareTokenInputSchema = z.object({
  code: z
    .string()
    .max(32, PAIRING_CODE_MESSAGE)
    .transform((typed, ctx) => {
      const code = normalizePairingCode(typed);
      if (code === null) {
        ctx.addIssue({ code: "custom", message: PAIRING_CODE_MESSAGE });
        return z.NEVER;
      }
      return code;
    }),
});

/** Where a token stands: in use, revoked, or waiting for a TV to redeem its pairing code (or past it). */
export type ShareTokenState = "active" | "revoked" | "pairing" | "pairing-expired";

/** A token as the admin list shows it: never its secret nor its code. */
export type ShareTokenView = {
  id: string;
  label: string;
  views: TvView[];
  allTeams: boolean;
  /** The chosen teams by name ("(deleted team)" for one removed since). Empty when allTeams. */
  teams: Array<{ id: string; name: string }>;
  createdBy: { id: string; name: string } | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  pairingExpiresAt: Date | null;
  state: ShareTokenState;
};

/** What `create` returns, once: the secret and its link, or the pairing code and when it expires. */
export type CreatedShareToken =
  | { kind: "link"; token: ShareTokenView; secret: string; link: string }
  | { kind: "pairing"; token: ShareTokenView; code: string; expiresAt: Date };

/** What a redeemed pairing code gives the TV: the view to open (its cookie is set by the answer). */
export type PairedScreen = { view: TvView; path: string };
