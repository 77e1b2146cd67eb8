import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readPodLog } from "./pod-logs";

const root = mkdtempSync(path.join(tmpdir(), "rebound-pod-logs-"));
const podsDir = path.join(root, "pods");
const secret = path.join(root, "elsewhere", "agent.log");
const ref = { namespace: "team-a", name: "train" };

function podLog(namespace: string, pod: string, text: string): string {
  const dir = path.join(podsDir, namespace, pod);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "agent.log"), text);
  return dir;
}

mkdirSync(path.dirname(secret), { recursive: true });
writeFileSync(secret, "SECRET\n");
podLog("team-a", "train-workers-0", "one\ntwo\nthree\n");
podLog("team-b", "other-workers-0", "OTHER TEAM\n");
// A pod that swapped its log for a link to another team's log, and one whose whole directory is a link.
mkdirSync(path.join(podsDir, "team-a", "train-workers-1"), { recursive: true });
symlinkSync(
  path.join(podsDir, "team-b", "other-workers-0", "agent.log"),
  path.join(podsDir, "team-a", "train-workers-1", "agent.log"),
);
symlinkSync(path.dirname(secret), path.join(podsDir, "team-a", "train-workers-2"));

afterAll(() => rmSync(root, { recursive: true, force: true }));

const read = (pod: string, namespace = ref.namespace) =>
  readPodLog({ podsDir, ref: { ...ref, namespace }, pod, tailLines: 2 });

describe("readPodLog", () => {
  it("returns the last lines of the pod's own log, and nothing for a pod without one", async () => {
    expect(await read("train-workers-0")).toBe("two\nthree\n");
    expect(await read("train-workers-9")).toBe("");
  });

  it.each([
    "train-x/../../team-b/other-workers-0",
    "../../elsewhere",
    "..",
    "train-workers-0/",
    "Train-workers-0",
    "train.workers.0",
    "",
  ])("refuses the pod name %j before building a path", async (pod) => {
    await expect(read(pod)).rejects.toMatchObject({
      code: "INVALID",
      message: expect.stringMatching(/^pod: /),
    });
  });

  it("refuses a namespace that is not a name", async () => {
    await expect(read("other-workers-0", "../team-b")).rejects.toMatchObject({ code: "INVALID" });
  });

  it("refuses a log that is a link out of the pod's directory, or a pod directory that is a link", async () => {
    await expect(read("train-workers-1")).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(read("train-workers-2")).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
