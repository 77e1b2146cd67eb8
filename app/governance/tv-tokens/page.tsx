import { TvTokensAdmin } from "@/components/share-tokens/tv-tokens-admin";

export default function TvTokensPage() {
  return (
    <>
      <h1>TV tokens</h1>
      <p className="muted">
        Read-only tokens for wall screens: each opens the TV views and teams it names, never anything else,
        and stops within seconds of being revoked.
      </p>
      <TvTokensAdmin />
    </>
  );
}
