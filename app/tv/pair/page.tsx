import { PairForm } from "@/components/share-tokens/pair-form";

export const metadata = { title: "Pair this screen · Rebound" };

export default function TvPairPage() {
  // /tv paths have no console chrome (components/shell/main-nav.tsx): the page is its own landmark.
  return (
    <main>
      <PairForm />
    </main>
  );
}
