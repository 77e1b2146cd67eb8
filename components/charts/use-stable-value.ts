"use client";

import { useState } from "react";

/**
 * Returns the first value seen for each `key`: a new object with the same key (the same data re-sent by a
 * live update) is swapped for the previous one, so memoised children downstream skip re-rendering. Uses
 * React's "adjust state during render" pattern rather than a ref, so it is safe under concurrent rendering.
 */
export function useStableValue<T>(value: T, key: string): T {
  const [stable, setStable] = useState({ key, value });
  if (stable.key !== key) {
    setStable({ key, value });
    return value;
  }
  return stable.value;
}
