"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import type { ComponentProps } from "react";

/**
 * A link that fetches its page when the pointer or focus reaches it, not as soon as it is on screen (Next's
 * default). The console's pages are rendered per request: the header's five section links, each
 * prefetched twice the moment a page hydrated, were ten server renders racing that page's own first data
 * (a 2,048-rank job's snapshot) on the console's one process.
 */
export function IntentLink(props: Omit<ComponentProps<typeof Link>, "href" | "prefetch"> & { href: string }) {
  const router = useRouter();
  const { href, onMouseEnter, onFocus, ...rest } = props;
  return (
    <Link
      {...rest}
      href={href}
      prefetch={false}
      onMouseEnter={(event) => {
        router.prefetch(href);
        onMouseEnter?.(event);
      }}
      onFocus={(event) => {
        router.prefetch(href);
        onFocus?.(event);
      }}
    />
  );
}
