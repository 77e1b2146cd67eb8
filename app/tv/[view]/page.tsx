import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { TvScreen } from "@/components/tv/tv-screen";
import { isTvView, TV_VIEW_TITLES } from "@/server/domain/access/share";

export async function generateMetadata({ params }: { params: Promise<{ view: string }> }): Promise<Metadata> {
  const { view } = await params;
  return { title: isTvView(view) ? `${TV_VIEW_TITLES[view]} · Rebound TV` : "Rebound TV" };
}

/** One TV view, kiosk style: `/tv/cluster`, `/tv/jobs`, `/tv/reliability`, `/tv/incidents`. */
export default async function TvViewPage({ params }: { params: Promise<{ view: string }> }) {
  const { view } = await params;
  if (!isTvView(view)) notFound();
  return <TvScreen view={view} />;
}
