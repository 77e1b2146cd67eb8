import { z } from "zod";
import { adminPasswordSchema } from "@/lib/env-schema";

/** The token of a setup link (`/setup?token=…`): base64url, as server/services/setup/tokens.ts makes it. */
export const setupTokenSchema = z
  .string()
  .min(16, { message: "expected the token from the setup link" })
  .max(200, { message: "expected the token from the setup link" })
  .regex(/^[A-Za-z0-9_-]+$/, { message: "expected the token from the setup link" });

export const setupStatusInputSchema = z.strictObject({ token: setupTokenSchema });
export type SetupStatusInput = z.infer<typeof setupStatusInputSchema>;

/** open: the link may create the first admin; invalid: unknown, used or expired; done: an admin exists. */
export const setupStatusSchema = z.enum(["open", "invalid", "done"]);
export type SetupStatus = z.infer<typeof setupStatusSchema>;

export const createAdminInputSchema = z.strictObject({
  token: setupTokenSchema,
  email: z.email({ message: "expected an email address" }).max(254),
  name: z.string().trim().min(1, { message: "a name is required" }).max(80),
  password: adminPasswordSchema,
});
export type CreateAdminInput = z.infer<typeof createAdminInputSchema>;
