import { describe, expect, it } from "vitest";
import { metricsQuery, nodeMetricsOf } from "./node-metrics";

const series = (labels: Record<string, string>, value: number) => ({
  labels,
  samples: [{ t: 1_000, value }],
});

describe("node metrics from a Prometheus answer", () => {
  it("asks only for the table's metrics, and only their series that are not 0", () => {
    expect(metricsQuery(["DCGM_FI_DEV_XID_ERRORS", "DCGM_EXP_GPU_HEALTH_STATUS"])).toBe(
      '{__name__=~"DCGM_FI_DEV_XID_ERRORS|DCGM_EXP_GPU_HEALTH_STATUS"} != 0',
    );
  });

  it("groups series by the exporter's host label (either spelling), one series per GPU and watch", () => {
    const byNode = nodeMetricsOf([
      series({ __name__: "DCGM_FI_DEV_XID_ERRORS", Hostname: "node-a", gpu: "3", err_msg: "fell off" }, 79),
      series(
        { __name__: "DCGM_EXP_GPU_HEALTH_STATUS", hostname: "node-a", gpu: "1", health_watch: "MEM" },
        20,
      ),
      series({ __name__: "DCGM_FI_DEV_ROW_REMAP_FAILURE", Hostname: "node-b", UUID: "GPU-1234" }, 1),
      series({ __name__: "DCGM_FI_DEV_XID_ERRORS", instance: "10.0.0.1:9400", gpu: "0" }, 48),
    ]);
    expect([...byNode.keys()]).toEqual(["node-a", "node-b"]);
    expect(byNode.get("node-a")?.map(({ name, series, value }) => [name, series, value])).toEqual([
      ["DCGM_EXP_GPU_HEALTH_STATUS", "gpu=1,health_watch=MEM", 20],
      ["DCGM_FI_DEV_XID_ERRORS", "gpu=3", 79],
    ]);
    expect(byNode.get("node-b")?.[0]?.series).toBe("UUID=GPU-1234");
    expect(nodeMetricsOf([series({ __name__: "X", node: "n" }, 1)], ["node"]).get("n")?.[0]?.value).toBe(1);
  });
});
