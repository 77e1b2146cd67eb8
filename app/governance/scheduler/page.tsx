import { SchedulerEditor } from "@/components/governance/scheduler/scheduler-editor";

export default function SchedulerPage() {
  return (
    <>
      <h1>Scheduler</h1>
      <section className="card" aria-labelledby="scheduler-heading">
        <h2 id="scheduler-heading">Priority classes and policies</h2>
        <SchedulerEditor />
      </section>
    </>
  );
}
