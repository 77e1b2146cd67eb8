import { loadKubeConfig } from "@/server/cluster/kubernetes/config";
import { startStandInAgents } from "@/server/cluster/kubernetes/testing/stand-in-agents";
import { createLogger } from "@/server/log";
import { checkStandInProtocol } from "./stand-in-check";

/**
 * The stand-in agents' own process (bench/k8s/agents.ts starts it): its CPU is the cost of answering the
 * operator's polls, kept apart from the bench's timing and from the operator. Talks over IPC:
 * `{ type: "fault", namespace, pod }`, `{ type: "freeze", namespace, pod }` (the pod's agent goes silent as
 * a SIGSTOPped one would: streams open, nothing sent, requests unanswered; the reply says when, this
 * machine's clock) and `{ type: "count" }` are answered with `{ type: "reply", … }`.
 * Exits when the channel closes (the bench ended or died).
 */
type Request =
  | { type: "fault"; namespace: string; pod: string }
  | { type: "freeze"; namespace: string; pod: string }
  | { type: "count" };

function answer(message: Request) {
  switch (message.type) {
    case "fault":
      return { ok: agents.fault({ namespace: message.namespace, pod: message.pod }) };
    case "freeze":
      return { ok: agents.freeze({ namespace: message.namespace, pod: message.pod }), at: Date.now() };
    case "count":
      return { count: agents.count(), started: agents.started() };
    default:
      return message satisfies never;
  }
}

const kubeconfig = process.argv[2];
if (!kubeconfig) throw new Error("usage: agents-main.ts <kubeconfig> [step-ms]");
const stepMs = process.argv[3] ? Number(process.argv[3]) : undefined;
const log = createLogger({ service: "stand-in-agents" });
await checkStandInProtocol();
const agents = await startStandInAgents({ kubeConfig: loadKubeConfig(kubeconfig), log, stepMs });

process.on("message", (message: Request) => {
  process.send?.({ type: "reply", ...answer(message) });
});
process.on("disconnect", () => {
  void agents.stop().finally(() => process.exit(0));
});
process.send?.({ type: "ready" });
