import { createTRPCRouter } from "@/server/api/trpc";

/** TV share tokens: a cluster admin creates, lists and revokes them; a TV redeems a pairing code. */
export const shareTokensRouter = createTRPCRouter({});
