"use client";

import { useEffect, useMemo, useState } from "react";
import { explainPolicy, type PolicyParse, parsePolicyYaml } from "@/server/domain/policy";

/** How long typing settles before the draft is parsed again. */
const SETTLE_MS = 200;

/**
 * The draft checked as it is typed, with the same pure parser the server runs again on save: its errors
 * and warnings (line and column), notes, and each rule in words when it parses. Parsing waits for typing
 * to settle, so a long paste does not parse once per keystroke.
 */
export function usePolicyCheck(yaml: string) {
  const [settled, setSettled] = useState(yaml);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(yaml), SETTLE_MS);
    return () => clearTimeout(timer);
  }, [yaml]);
  return useMemo(() => {
    const parse: PolicyParse = parsePolicyYaml(settled);
    const explanation = parse.ok ? explainPolicy(parse.runPolicy) : null;
    return { parse, explanation, checking: settled !== yaml };
  }, [settled, yaml]);
}
