"use client";

import { type RefObject, useLayoutEffect, useState } from "react";

/**
 * The content-box width of an element, kept current with a ResizeObserver. Measured in a layout effect so
 * the first paint already has the right width (no flash of a 0-wide canvas), and only re-renders when the
 * width changes by a whole pixel.
 */
export function useElementWidth(ref: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const update = (next: number) =>
      setWidth((current) => (Math.floor(next) === current ? current : Math.floor(next)));
    update(element.getBoundingClientRect().width);
    const observer = new ResizeObserver((entries) => {
      const entry = entries[0];
      if (entry) update(entry.contentRect.width);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}
