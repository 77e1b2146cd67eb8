import type { Metadata } from "next";
import { TvIndex } from "@/components/tv/tv-index";

export const metadata: Metadata = { title: "TV dashboards · Rebound" };

export default function TvIndexPage() {
  return <TvIndex />;
}
