import { PolicyLibrary } from "@/components/policy/library/policy-library";

export default function PoliciesPage() {
  return (
    <>
      <h1>Policies</h1>
      <p className="muted">
        Recovery and log-monitoring policies (a job's runPolicy) kept per team with their versions. Apply one
        to a job from the job's Policy page.
      </p>
      <PolicyLibrary />
    </>
  );
}
