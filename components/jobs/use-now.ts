"use client";

import { useEffect, useState } from "react";

/**
 * Epoch ms, refreshed every `intervalMs` (default 1 s): the clock for "3 s ago" ages and pending spans.
 * One timer per page, passed down as a prop, so every age on the page ticks together in one render.
 * Starts at the mount time; elements whose text depends on it may differ from the server render by a
 * second, so prefer mounting it where the data is fetched client-side.
 */
export function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
