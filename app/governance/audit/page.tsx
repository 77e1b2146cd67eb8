import { AuditList } from "@/components/governance/audit/audit-list";

export default function GovernanceAuditPage() {
  return (
    <>
      <h1>Governance audit log</h1>
      <section className="card" aria-label="Audit log">
        <AuditList />
      </section>
    </>
  );
}
