import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";

/**
 * What the job's policy page reads, as the policies router answers it (so a change on the server is a
 * type error here, not a blank panel).
 */
type Outputs = inferRouterOutputs<AppRouter>["policies"];

export type JobPolicy = Outputs["forJob"];
export type LibraryPolicy = Outputs["list"][number];
export type PolicyDetail = Outputs["get"];

export type JobRef = { namespace: string; name: string };

/** The library version a page acts on: saved, shadowed or applied. */
export type VersionChoice = { policyId: string; name: string; version: number };

/** One thing a shadow rule set would have done, as the page lists it. */
export type ShadowVerdictView = {
  id: string;
  /** Epoch ms. */
  at: number;
  rank: number | null;
  pod: string;
  /** "would have restarted rank 3 in place: rule hang HANGING at …" */
  message: string;
};
