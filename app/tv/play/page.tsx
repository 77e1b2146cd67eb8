import type { Metadata } from "next";
import { parsePlaylist } from "@/components/tv/playlist";
import { TvPlaylist } from "@/components/tv/tv-playlist";

export const metadata: Metadata = { title: "Playlist · Rebound TV" };

/** `/tv/play?views=cluster,jobs,incidents&every=30`: the views in turn, each for `every` seconds. */
export default async function TvPlaylistPage({
  searchParams,
}: {
  searchParams: Promise<{ views?: string | string[]; every?: string | string[] }>;
}) {
  return <TvPlaylist playlist={parsePlaylist(await searchParams)} />;
}
