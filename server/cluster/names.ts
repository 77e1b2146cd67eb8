import { AppError } from "@/server/errors";

/**
 * Names that end up in a file path (local pod logs) or a URL path (the apiserver's pods/log): checked
 * before either is built, so no `/`, `.` or `%` can reach one. Namespaces are DNS-1123 labels (≤ 63). Pod
 * names use the same characters but may be longer: the operator names pods `<job>-<replicaSpec>-<index>`,
 * both parts labels of up to 63, and Kubernetes allows pod names up to 253.
 */
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LIMITS = { namespace: 63, pod: 253 } as const;

export function describeName(field: keyof typeof LIMITS): string {
  return `lower-case letters, digits and '-', starting and ending with a letter or digit, at most ${LIMITS[field]} characters`;
}

export function isValidName(field: keyof typeof LIMITS, value: string): boolean {
  return value.length <= LIMITS[field] && LABEL.test(value);
}

/** Throws INVALID naming the field and what a name must look like. */
export function requireName(field: keyof typeof LIMITS, value: string): string {
  if (!isValidName(field, value))
    throw new AppError(
      "INVALID",
      `${field}: expected a ${field} name (${describeName(field)}), got ${JSON.stringify(value)}`,
    );
  return value;
}
