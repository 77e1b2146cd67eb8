import { describe, expect, it } from "vitest";
import { formatQuantity, resourceLabel } from "./format";

describe("format", () => {
  it("formats memory in GiB and counts plainly", () => {
    expect(formatQuantity("memory", 3 * 2 ** 30)).toBe("3 GiB");
    expect(formatQuantity("nvidia.com/gpu", 1024)).toBe("1,024");
    expect(formatQuantity("cpu", 0.5)).toBe("0.5");
  });

  it("labels known resources and passes others through", () => {
    expect(resourceLabel("nvidia.com/gpu")).toBe("GPUs");
    expect(resourceLabel("vpc.amazonaws.com/efa")).toBe("vpc.amazonaws.com/efa");
  });
});
