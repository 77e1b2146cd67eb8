{{/*
Object names are fixed (rebound-operator, rebound-console, rebound-db…), not derived from the release name:
the operator's Lease, the console's operator URL and the agents' NetworkPolicy refer to them, and the CRD and
ClusterRoles are cluster-wide, so a cluster holds one Rebound release.
*/}}

{{/* Labels Helm adds to every object's metadata (never to selectors, which are immutable). */}}
{{- define "rebound.chartLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "rebound.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* The Secret holding the database URL: created by the chart from database.url, or the existing one. */}}
{{- define "rebound.databaseSecret" -}}
{{- if .Values.database.url }}rebound-db{{ else }}{{ required "database.existingSecret: set it (or database.url)" .Values.database.existingSecret }}{{ end }}
{{- end }}

{{/*
The Secret holding single sign-on's client secret (key client-secret): the existing one, or rebound-oidc made
from console.oidc.clientSecret. Single sign-on also needs console.publicUrl for its redirect URI.
*/}}
{{- define "rebound.oidcSecret" -}}
{{- $oidc := .Values.console.oidc -}}
{{- $_ := required "console.publicUrl: the console's address as browsers reach it (single sign-on redirects there)" .Values.console.publicUrl -}}
{{- if $oidc.existingSecret }}{{ $oidc.existingSecret }}{{ else }}{{ $_ := required "console.oidc.clientSecret: set it (or console.oidc.existingSecret)" $oidc.clientSecret }}rebound-oidc{{ end }}
{{- end }}

{{- define "rebound.prometheusPodSelector" -}}
{{ toYaml .Values.prometheus.podSelector }}
{{- end }}

{{/* The health endpoints `helm test` checks, as a JSON list. */}}
{{- define "rebound.healthUrls" -}}
{{- $urls := list }}
{{- if .Values.operator.enabled }}
{{- $urls = append $urls (printf "http://rebound-operator.%s.svc:8082/healthz" .Release.Namespace) }}
{{- end }}
{{- if .Values.console.enabled }}
{{- $urls = append $urls (printf "http://rebound-console.%s.svc:%v/api/healthz" .Release.Namespace .Values.console.service.port) }}
{{- end }}
{{- toJson $urls }}
{{- end }}
