import { RequireSignIn } from "@/components/shell/require-sign-in";
import { JobsList } from "./_components/jobs-list";

export default function JobsPage() {
  return (
    <>
      <h1>Jobs</h1>
      <RequireSignIn>
        <JobsList />
      </RequireSignIn>
    </>
  );
}
