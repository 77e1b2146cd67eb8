import { PolicyWorkspace } from "@/components/policy/library/policy-workspace";

export default async function PolicyPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <PolicyWorkspace id={id} />;
}
