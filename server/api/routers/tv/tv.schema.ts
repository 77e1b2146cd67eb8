import { z } from "zod";
import { TV_VIEWS } from "@/server/domain/access/share";

export const tvViewSchema = z.enum(TV_VIEWS);

export const tvFrameInputSchema = z.object({ view: tvViewSchema });
export type TvFrameInput = z.infer<typeof tvFrameInputSchema>;

export const tvViewsOutputSchema = z.object({
  views: z.array(tvViewSchema),
  /** Whose screen this is: the token's label, or the signed-in user's name. */
  viewer: z.object({ kind: z.enum(["user", "share"]), label: z.string() }),
});
export type TvViewsOutput = z.infer<typeof tvViewsOutputSchema>;
