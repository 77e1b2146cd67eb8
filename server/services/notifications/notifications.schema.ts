import { z } from "zod";

/**
 * Per-team notifications (issue 38): the inputs the router takes and the client forms import. Every
 * refusal names its field (server/api/trpc.ts formats zod issues as `field: message`).
 */

export const CHANNEL_KINDS = ["alertmanager", "slack"] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export const EVENT_KINDS = [
  "job_failed",
  "job_recovered",
  "restart_storm",
  "pending_long",
  "node_fault",
  "preempted",
  "quota_changed",
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

const count = z.int().min(1, "must be 1 or more").max(10_000, "must be 10000 or less");
const minutes = z
  .int()
  .min(1, "must be 1 or more")
  .max(7 * 24 * 60, "must be a week or less");

/** One subscription: the event kind and its parameters (N restarts, M minutes, T minutes pending). */
export const subscriptionSchema = z.discriminatedUnion(
  "event",
  [
    z.object({ event: z.literal("job_failed") }),
    z.object({ event: z.literal("job_recovered"), restarts: count }),
    z.object({ event: z.literal("restart_storm"), restarts: count, minutes }),
    z.object({ event: z.literal("pending_long"), minutes }),
    z.object({ event: z.literal("node_fault") }),
    z.object({ event: z.literal("preempted") }),
    z.object({ event: z.literal("quota_changed") }),
  ],
  { error: () => `unknown event: one of ${EVENT_KINDS.join(", ")}` },
);
export type Subscription = z.infer<typeof subscriptionSchema>;

const teamName = z.string().min(1, "required").max(63);

export const teamInputSchema = z.object({ team: teamName });

export const createChannelInputSchema = z.object({
  team: teamName,
  name: z
    .string()
    .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, "lower-case letters, digits and '-', at most 63"),
  kind: z.enum(CHANNEL_KINDS, { error: () => `one of ${CHANNEL_KINDS.join(", ")}` }),
  url: z.url({ protocol: /^https?$/, error: () => "an http:// or https:// URL" }).max(2048),
});
export type CreateChannelInput = z.infer<typeof createChannelInputSchema>;

export const channelInputSchema = z.object({ team: teamName, channelId: z.uuid("not a channel id") });
export type ChannelInput = z.infer<typeof channelInputSchema>;

export const setSubscriptionInputSchema = channelInputSchema.extend({ subscription: subscriptionSchema });
export type SetSubscriptionInput = z.infer<typeof setSubscriptionInputSchema>;

export const removeSubscriptionInputSchema = channelInputSchema.extend({
  event: z.enum(EVENT_KINDS, { error: () => `unknown event: one of ${EVENT_KINDS.join(", ")}` }),
});
export type RemoveSubscriptionInput = z.infer<typeof removeSubscriptionInputSchema>;

export const deliveriesInputSchema = z.object({
  team: teamName,
  limit: z.int().min(1).max(200).default(50),
});

/** A channel as every view shows it: never the URL, only a hint (host and last 4 characters). */
export type ChannelView = {
  id: string;
  name: string;
  kind: ChannelKind;
  urlHint: string;
  subscriptions: Subscription[];
  createdAt: Date;
};

export type DeliveryView = {
  id: string;
  channel: string;
  event: string;
  key: string;
  summary: string;
  status: "pending" | "sent" | "failed";
  attempts: number;
  responseCode: number | null;
  lastError: string | null;
  createdAt: Date;
  sentAt: Date | null;
};

export type NotificationsView = {
  team: string;
  canEdit: boolean;
  channels: ChannelView[];
};

/** Host and last 4 characters of a webhook URL: enough to tell channels apart, too little to use. */
export function urlHint(url: string): string {
  const { host } = new URL(url);
  return `${host} …${url.slice(-4)}`;
}
