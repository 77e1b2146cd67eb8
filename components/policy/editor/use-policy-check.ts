"use client";

/**
 * The policy as the browser reads it, ~200 ms after the last change: the domain's parsePolicyYaml (pure, the
 * server runs it again) and explainPolicy when it parses. Feeds the form view's messages and explanations.
 */
import { useEffect, useState } from "react";
import { explainPolicy, type PolicyParse, parsePolicyYaml } from "@/server/domain/policy";

export type PolicyCheck = {
  /** The text this check is of (it trails the draft by the debounce). */
  yaml: string;
  parse: PolicyParse;
  explanation: ReturnType<typeof explainPolicy> | null;
};

const CHECK_DELAY_MS = 200;

export function checkPolicy(yaml: string): PolicyCheck {
  const parse = parsePolicyYaml(yaml);
  return { yaml, parse, explanation: parse.ok ? explainPolicy(parse.runPolicy) : null };
}

/** Errors and warnings as one list with their paths (the form shows them beside the fields). */
export function problemsOfCheck(check: PolicyCheck): ReadonlyArray<{ path: string; message: string }> {
  return check.parse.ok ? check.parse.warnings : check.parse.errors;
}

export function usePolicyCheck(yaml: string): PolicyCheck {
  const [check, setCheck] = useState(() => checkPolicy(yaml));
  useEffect(() => {
    if (check.yaml === yaml) return;
    const timer = setTimeout(() => setCheck(checkPolicy(yaml)), CHECK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [yaml, check.yaml]);
  return check;
}
