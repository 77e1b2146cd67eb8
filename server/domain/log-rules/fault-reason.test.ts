import { describe, expect, it } from "vitest";
import {
  logFault,
  logFaultMessage,
  logFaultReason,
  parseLogFaultReason,
  pythonStringRepr,
} from "./fault-reason";

describe("agent fault reasons and messages", () => {
  const rules = [
    { rule: "JobHangingDetection", line: "Epoch 3 loss=1.2" },
    { rule: "JobStart", line: null },
  ];

  it("names the first rule in the reason", () => {
    expect(logFaultReason("HANGING", rules)).toBe("LogHang_JobHangingDetection");
    expect(logFaultReason("SLOW", rules)).toBe("LogSlow_JobHangingDetection");
    expect(logFaultReason("FAULTED", rules)).toBe("LogFault_JobHangingDetection");
  });

  it("embeds the Python repr of the {rule: line} dict, each line ending as readline() read it", () => {
    expect(logFaultMessage("HANGING", rules)).toBe(
      "The job is hanging (not receiving required logs) on the following log monitoring rules and corresponding last matched log lines: {'JobHangingDetection': 'Epoch 3 loss=1.2\\n', 'JobStart': None}",
    );
    expect(logFault("SLOW", [{ rule: "Tput", line: "tput 3" }])).toEqual({
      reason: "LogSlow_Tput",
      message:
        "The job is slowed (logs outside of acceptable thresholds) on the following log monitoring rules and corresponding log lines: {'Tput': 'tput 3\\n'}",
    });
    expect(logFaultMessage("FAULTED", [{ rule: "OOM", line: "out of memory" }])).toBe(
      "The job detected a fault indicating log message for the following log monitoring rules and corresponding log lines: {'OOM': 'out of memory\\n'}",
    );
  });

  it("quotes and escapes strings like Python repr()", () => {
    expect(pythonStringRepr("plain")).toBe("'plain'");
    expect(pythonStringRepr("it's")).toBe(`"it's"`);
    expect(pythonStringRepr(`it's "x"`)).toBe(`'it\\'s "x"'`);
    expect(pythonStringRepr("a\tb\\c\n")).toBe("'a\\tb\\\\c\\n'");
    expect(pythonStringRepr("\u0007\u00a0é\u200b")).toBe("'\\x07\\xa0é\\u200b'");
  });

  it("reads both reason families back", () => {
    expect(parseLogFaultReason("LogHang_JobStart")).toEqual({ state: "HANGING", rule: "JobStart" });
    expect(parseLogFaultReason("LogStateHanging_JobStart")).toEqual({ state: "HANGING", rule: "JobStart" });
    expect(parseLogFaultReason("LogStateSlow_Tput")).toEqual({ state: "SLOW", rule: "Tput" });
    expect(parseLogFaultReason("LogFault_OOM")).toEqual({ state: "FAULTED", rule: "OOM" });
    expect(parseLogFaultReason("WorkerCrash")).toBeNull();
    expect(parseLogFaultReason("LogHang_")).toBeNull();
  });
});
