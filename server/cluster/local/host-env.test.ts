import { describe, expect, it } from "vitest";
import { POD_HOST_ENV, podHostEnv } from "./host-env";

describe("podHostEnv: what a local pod takes from this machine", () => {
  const operator = {
    PATH: "/usr/bin:/bin",
    HOME: "/root",
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    LC_CTYPE: "C.UTF-8",
    TZ: "UTC",
    TMPDIR: "/tmp",
    LD_LIBRARY_PATH: "/usr/local/cuda/lib64",
    DATABASE_URL: "postgres://rebound:secret@127.0.0.1:5432/rebound",
    REBOUND_DATA_DIR: "/work/main/.data",
    REBOUND_SESSION_SECRET: "secret",
    OPERATOR_METRICS_PORT: "8082",
    NODE_OPTIONS: "--max-old-space-size=600",
    AWS_SECRET_ACCESS_KEY: "secret",
    HTTPS_PROXY: "http://user:secret@proxy:3128",
    GITHUB_TOKEN: "secret",
    NNODES: "64",
    LCX: "not a locale category",
    UNSET: undefined,
  };

  it("keeps the allow-list and the locale categories, and nothing else", () => {
    expect(podHostEnv(operator)).toEqual({
      PATH: "/usr/bin:/bin",
      HOME: "/root",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      LC_CTYPE: "C.UTF-8",
      TZ: "UTC",
      TMPDIR: "/tmp",
      LD_LIBRARY_PATH: "/usr/local/cuda/lib64",
    });
  });

  it("says why each allowed name is there", () => {
    for (const [name, why] of Object.entries(POD_HOST_ENV)) expect(why.length, name).toBeGreaterThan(20);
  });
});
