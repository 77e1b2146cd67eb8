import { z } from "zod";

export const signInInputSchema = z.strictObject({
  email: z.email({ message: "expected an email address" }).max(254),
  password: z.string().min(1, { message: "a password is required" }).max(1024),
});
export type SignInInput = z.infer<typeof signInInputSchema>;
