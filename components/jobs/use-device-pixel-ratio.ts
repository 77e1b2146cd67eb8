"use client";

import { useSyncExternalStore } from "react";

function subscribe(onChange: () => void): () => void {
  // A resolution query matches only the current ratio; when it stops matching (window dragged to another
  // screen, browser zoom) the ratio changed. Re-subscribing after each change re-arms it for the new ratio.
  let query: MediaQueryList | null = null;
  const arm = () => {
    query?.removeEventListener("change", fire);
    query = window.matchMedia(`(resolution: ${window.devicePixelRatio}dppx)`);
    query.addEventListener("change", fire);
  };
  const fire = () => {
    arm();
    onChange();
  };
  arm();
  return () => query?.removeEventListener("change", fire);
}

/** window.devicePixelRatio, re-rendering when it changes (zoom, moving to another screen); 1 on the server. */
export function useDevicePixelRatio(): number {
  return useSyncExternalStore(
    subscribe,
    () => window.devicePixelRatio || 1,
    () => 1,
  );
}
