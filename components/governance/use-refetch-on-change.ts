import { useEffect, useRef } from "react";

/**
 * Fetches again when `key` changes after the first render (the job's state moved on the live stream): the
 * on-demand alternative to polling.
 */
export function useRefetchOnChange(key: string | undefined, refetch: () => unknown): void {
  const last = useRef(key);
  useEffect(() => {
    if (last.current === key) return;
    last.current = key;
    refetch();
  }, [key, refetch]);
}
