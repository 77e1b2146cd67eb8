import { PairForm } from "@/components/share-tokens/pair-form";

export const metadata = { title: "Pair this screen · Rebound" };

export default function TvPairPage() {
  return <PairForm />;
}
