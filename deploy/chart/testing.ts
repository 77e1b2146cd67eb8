/** Values the chart's tests share (chart.k8s-test.ts renders them, install.k8s-test.ts installs them). */

/** Every optional part of the chart on. */
export const ALL_ON = [
  "database.url=postgresql://rebound:secret@postgres.example:5432/rebound",
  "prometheus.url=http://prometheus.monitoring.svc:9090",
  "prometheus.scrapeConfig.enabled=true",
  "prometheus.serviceMonitor.enabled=true",
  "console.ingress.enabled=true",
  "console.ingress.host=rebound.example.com",
  "console.ingress.tlsSecretName=rebound-tls",
  "kueue.enabled=true",
  "grafana.dashboards.enabled=true",
  "agents.networkPolicy.enabled=true",
  "agents.networkPolicy.namespaces={hyperpod-ns-a,hyperpod-ns-b}",
];

/** `--set` arguments for helm. */
export const sets = (values: string[]): string[] => values.flatMap((value) => ["--set", value]);
