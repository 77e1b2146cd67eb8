"use client";

import Link from "next/link";
import { RenderError } from "@/components/shell/render-error";

/** A page that failed while rendering: said in the console's frame (the header and navigation stay). */
export default function ErrorPage({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <RenderError
      headingId="error-heading"
      title="This page could not be shown"
      error={error}
      reset={reset}
      home={
        <Link className="button button-secondary" href="/">
          Go to the overview
        </Link>
      }
    />
  );
}
