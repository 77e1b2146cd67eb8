import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../log";
import { ARRIVALS_FILE, createArrivalRecorder, lastArrivalSegment, MAX_ARRIVALS } from "./arrivals";

const root = mkdtempSync(path.join(tmpdir(), "rebound-arrivals-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const T0 = Date.parse("2026-03-01T10:00:00Z");

/** Writes through a recorder and reads the file back once every write is flushed. */
async function recorded(
  name: string,
  write: (log: ReturnType<ReturnType<typeof createArrivalRecorder>["of"]>) => void,
) {
  const attemptDir = path.join(root, name);
  mkdirSync(path.join(attemptDir, "0"), { recursive: true });
  const recorder = createArrivalRecorder({ attemptDir, logger: createLogger({ test: name }) });
  write(recorder.of(0));
  await recorder.closeAll();
  return readFileSync(path.join(attemptDir, "0", ARRIVALS_FILE), "utf8");
}

describe("a rank's arrival log", () => {
  it("writes the rules' start, each line's stream and time in order, and the process's end", async () => {
    const text = await recorded("order", (log) => {
      log.rulesStart(T0);
      log.line("stdout", T0 + 200.4);
      log.line("stderr", T0 + 250);
      log.line("stdout", T0 + 400);
      log.ended(T0 + 500);
    });
    expect(text).toBe(`s${T0} 0 0\no${T0 + 200}\ne${T0 + 250}\no${T0 + 400}\nx${T0 + 500}\n`);
    expect(lastArrivalSegment(text)).toEqual({
      startedAt: T0,
      skip: { stdout: 0, stderr: 0 },
      lines: [
        { stream: "stdout", at: T0 + 200 },
        { stream: "stderr", at: T0 + 250 },
        { stream: "stdout", at: T0 + 400 },
      ],
      endedAt: T0 + 500,
    });
  });

  it("starts a new segment where the rules restart, saying how many lines of each file came before", async () => {
    const text = await recorded("restart", (log) => {
      log.rulesStart(T0);
      log.line("stdout", T0 + 1);
      log.line("stdout", T0 + 2);
      log.line("stderr", T0 + 3);
      log.rulesStart(T0 + 10);
      log.line("stderr", T0 + 11);
    });
    expect(lastArrivalSegment(text)).toMatchObject({
      startedAt: T0 + 10,
      skip: { stdout: 2, stderr: 1 },
      lines: [{ stream: "stderr", at: T0 + 11 }],
      endedAt: null,
    });
  });

  it("dates at most MAX_ARRIVALS lines after a start, and still counts the rest for the next start", async () => {
    const text = await recorded("bound", (log) => {
      log.rulesStart(T0);
      for (let line = 0; line < MAX_ARRIVALS + 5; line += 1) log.line("stdout", T0 + line);
    });
    expect(text.trim().split("\n")).toHaveLength(MAX_ARRIVALS + 1);
    const again = await recorded("bound-restart", (log) => {
      log.rulesStart(T0);
      for (let line = 0; line < MAX_ARRIVALS + 5; line += 1) log.line("stdout", T0 + line);
      log.rulesStart(T0 + 1_000_000);
      log.line("stdout", T0 + 1_000_001);
    });
    expect(lastArrivalSegment(again)).toMatchObject({
      skip: { stdout: MAX_ARRIVALS + 5, stderr: 0 },
      lines: [{ stream: "stdout", at: T0 + 1_000_001 }],
    });
  });
});

describe("lastArrivalSegment", () => {
  it("is null without a start, and ignores a torn first entry of a tail read", () => {
    expect(lastArrivalSegment("")).toBeNull();
    expect(lastArrivalSegment(`o${T0}\ne${T0}\n`)).toBeNull();
    expect(lastArrivalSegment(`${T0} 3 4\no${T0 + 1}\ns${T0 + 2} 7 0\no${T0 + 3}\n`)).toMatchObject({
      startedAt: T0 + 2,
      skip: { stdout: 7, stderr: 0 },
      lines: [{ stream: "stdout", at: T0 + 3 }],
    });
  });

  it("ends the segment at an entry it cannot read (nothing after it can be lined up with the files)", () => {
    const text = `s${T0} 0 0\no${T0 + 1}\no${T0 + 2}garbage\no${T0 + 3}\n`;
    expect(lastArrivalSegment(text)?.lines).toEqual([{ stream: "stdout", at: T0 + 1 }]);
  });
});
