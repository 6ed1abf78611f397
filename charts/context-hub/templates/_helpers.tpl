{{/*
Names, labels and small shared fragments. Templates that take a component are
called with (dict "root" $ "component" "<name>").
*/}}

{{/* The chart name, or nameOverride. */}}
{{- define "context-hub.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* "<release>-<chart>" truncated for DNS, or fullnameOverride. */}}
{{- define "context-hub.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* chart-version, for the helm.sh/chart label. */}}
{{- define "context-hub.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The name of a component's objects: "<fullname>-<component>", kept under 63 characters. */}}
{{- define "context-hub.componentName" -}}
{{- printf "%s-%s" (include "context-hub.fullname" .root | trunc (int (sub 62 (len .component)))) .component | trimSuffix "-" -}}
{{- end -}}

{{/* Labels that select a component's pods; they never change across upgrades. */}}
{{- define "context-hub.selectorLabels" -}}
app.kubernetes.io/name: {{ include "context-hub.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Every label of a component's objects. */}}
{{- define "context-hub.labels" -}}
helm.sh/chart: {{ include "context-hub.chart" .root }}
{{ include "context-hub.selectorLabels" . }}
app.kubernetes.io/part-of: context-hub
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- with .root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The image reference: repository@digest, or repository:tag (tag defaults to appVersion). */}}
{{- define "context-hub.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* The ServiceAccount name of a component. */}}
{{- define "context-hub.serviceAccountName" -}}
{{- $sa := (index .root.Values .component).serviceAccount -}}
{{- if $sa.create -}}
{{- default (include "context-hub.componentName" .) $sa.name -}}
{{- else -}}
{{- default "default" $sa.name -}}
{{- end -}}
{{- end -}}

{{/* host:port of a gRPC component's Service, as the gateway dials it. */}}
{{- define "context-hub.address" -}}
{{- printf "%s:%d" (include "context-hub.componentName" .) (int (index .root.Values .component).port) -}}
{{- end -}}

{{/* The pod-level security context every Context Hub pod runs with. */}}
{{- define "context-hub.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.podSecurity.runAsUser }}
runAsGroup: {{ .Values.podSecurity.runAsGroup }}
fsGroup: {{ .Values.podSecurity.fsGroup }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* The container security context every container of the chart runs with. */}}
{{- define "context-hub.containerSecurityContext" -}}
runAsNonRoot: true
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
privileged: false
capabilities:
  drop:
    - ALL
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Environment every service reads: LOG_LEVEL and, when set, the OTLP endpoint. */}}
{{- define "context-hub.commonEnv" -}}
{{- $values := index .root.Values .component -}}
- name: LOG_LEVEL
  value: {{ default .root.Values.logLevel $values.logLevel | quote }}
{{- with .root.Values.tracing.otlpEndpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ . | quote }}
- name: OTEL_SERVICE_NAME
  value: {{ printf "context-hub-%s" $.component | quote }}
{{- end }}
{{- end -}}

{{/* The name of the Secret holding the in-chart Postgres password. */}}
{{- define "context-hub.postgresql.secretName" -}}
{{- default (include "context-hub.componentName" (dict "root" . "component" "postgresql")) .Values.postgresql.existingSecret -}}
{{- end -}}

{{/* "true" when Qdrant (in-chart or external) is the vector backend, else empty. */}}
{{- define "context-hub.qdrantBackend" -}}
{{- if or .Values.qdrant.enabled .Values.qdrant.url -}}true{{- end -}}
{{- end -}}

{{/*
DATABASE_URL (and DATABASE_POOL_MAX) for the store and the migrations Job: from
database.existingSecret, or composed for the in-chart Postgres with the password
expanded by Kubernetes from the variable defined just before it. Then the
vector backend: pgvector, or Qdrant (in-chart or external) fed from the outbox.
*/}}
{{- define "context-hub.databaseEnv" -}}
{{- if .Values.postgresql.enabled }}
- name: DATABASE_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "context-hub.postgresql.secretName" . }}
      key: {{ .Values.postgresql.passwordKey }}
- name: DATABASE_URL
  value: {{ printf "postgres://%s:$(DATABASE_PASSWORD)@%s:5432/%s" .Values.postgresql.username (include "context-hub.componentName" (dict "root" . "component" "postgresql")) .Values.postgresql.database | quote }}
{{- else }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.database.existingSecret }}
      key: {{ .Values.database.urlKey }}
{{- end }}
- name: DATABASE_POOL_MAX
  value: {{ .Values.database.poolMax | quote }}
{{- if include "context-hub.qdrantBackend" . }}
- name: STORE_VECTOR_BACKEND
  value: "qdrant"
- name: STORE_QDRANT_URL
  {{- if .Values.qdrant.enabled }}
  value: {{ printf "http://%s:6333" (include "context-hub.componentName" (dict "root" . "component" "qdrant")) | quote }}
  {{- else }}
  value: {{ .Values.qdrant.url | quote }}
  {{- end }}
- name: STORE_QDRANT_COLLECTION
  value: {{ .Values.qdrant.collection | quote }}
{{- with .Values.qdrant.apiKey.existingSecret }}
- name: STORE_QDRANT_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $.Values.qdrant.apiKey.key }}
{{- end }}
{{- else }}
- name: STORE_VECTOR_BACKEND
  value: "pgvector"
{{- end }}
{{- end -}}

{{/* The topology spread of a component: its own constraints, or the top-level defaults. */}}
{{- define "context-hub.topologySpread" -}}
{{- $values := index .root.Values .component -}}
{{- if $values.topologySpreadConstraints -}}
{{ toYaml $values.topologySpreadConstraints }}
{{- else -}}
{{- $spread := .root.Values.topologySpread -}}
{{- range $key, $when := dict "topology.kubernetes.io/zone" $spread.zone "kubernetes.io/hostname" $spread.hostname }}
{{- if $when }}
- maxSkew: {{ $spread.maxSkew }}
  topologyKey: {{ $key }}
  whenUnsatisfiable: {{ $when }}
  labelSelector:
    matchLabels:
      {{- include "context-hub.selectorLabels" $ | nindent 6 }}
  matchLabelKeys:
    - pod-template-hash
{{- end }}
{{- end }}
{{- end -}}
{{- end -}}

{{/* The public MCP resource URL: publicUrl, or derived from the ingress host. */}}
{{- define "context-hub.publicUrl" -}}
{{- if .Values.publicUrl -}}
{{- .Values.publicUrl -}}
{{- else if and .Values.ingress.enabled .Values.ingress.host -}}
{{- printf "%s://%s/mcp" (ternary "https" "http" .Values.ingress.tls.enabled) .Values.ingress.host -}}
{{- end -}}
{{- end -}}

{{/* Stops rendering, listing every contradiction in the values at once, each with its remedy. */}}
{{- define "context-hub.validateValues" -}}
{{- $errors := list -}}
{{- $modes := splitList "," .Values.auth.mode -}}
{{- if and (has "none" $modes) (not .Values.auth.allowUnauthenticated) -}}
{{- $errors = append $errors "auth.mode is none: set auth.allowUnauthenticated=true to serve MCP without authentication, or choose api-key or oidc" -}}
{{- end -}}
{{- if and (has "api-key" $modes) (not .Values.auth.apiKeys.existingSecret) -}}
{{- $errors = append $errors "auth.mode includes api-key: set auth.apiKeys.existingSecret to the Secret holding the API-keys file" -}}
{{- end -}}
{{- if and (has "oidc" $modes) (not (and .Values.auth.oidc.issuer .Values.auth.oidc.audience)) -}}
{{- $errors = append $errors "auth.mode includes oidc: set auth.oidc.issuer and auth.oidc.audience" -}}
{{- end -}}
{{- if and (has "oidc" $modes) (not (include "context-hub.publicUrl" .)) -}}
{{- $errors = append $errors "auth.mode includes oidc: set publicUrl (or enable the ingress with a host) so the gateway can name its resource URL" -}}
{{- end -}}
{{- if and (not .Values.postgresql.enabled) (not .Values.database.existingSecret) -}}
{{- $errors = append $errors "set database.existingSecret to a Secret holding DATABASE_URL, or postgresql.enabled=true for the in-chart Postgres" -}}
{{- end -}}
{{- if and .Values.auth.oidc.tenant .Values.auth.oidc.tenantClaim -}}
{{- $errors = append $errors "auth.oidc: set either tenant (one fixed tenant) or tenantClaim (the tenant comes from a claim), not both" -}}
{{- end -}}
{{- if and (has "oidc" $modes) (not .Values.auth.oidc.tenant) (not .Values.auth.oidc.tenantClaim) -}}
{{- $errors = append $errors "auth.mode includes oidc: set auth.oidc.tenantClaim (OIDC_TENANT_CLAIM, a claim only your administrators can set) or auth.oidc.tenant (OIDC_TENANT, one fixed tenant)" -}}
{{- end -}}
{{- /* With a provider Secret the model, address and key may come from it, so only a provider without one is checked. */ -}}
{{- range $worker, $providers := dict "embedder" (dict "keyed" (list "openai" "voyage") "noDefaultUrl" (list)) "summarizer" (dict "keyed" (list "openai" "anthropic") "noDefaultUrl" (list)) "reranker" (dict "keyed" (list "cohere" "voyage") "noDefaultUrl" (list "tei")) -}}
{{- $provider := (index $.Values $worker).provider -}}
{{- $prefix := upper $worker -}}
{{- if and $provider.name (ne $provider.name "builtin") (not $provider.existingSecret) -}}
{{- if not $provider.model -}}
{{- $errors = append $errors (printf "%s.provider.name is %s: set %s.provider.model (%s_MODEL), the model id sent to the API" $worker $provider.name $worker $prefix) -}}
{{- end -}}
{{- if and (has $provider.name $providers.keyed) (not $provider.baseUrl) -}}
{{- $errors = append $errors (printf "%s.provider.name is %s at its default address, which needs an API key: set %s.provider.existingSecret to a Secret holding %s_API_KEY" $worker $provider.name $worker $prefix) -}}
{{- end -}}
{{- if and (has $provider.name $providers.noDefaultUrl) (not $provider.baseUrl) -}}
{{- $errors = append $errors (printf "%s.provider.name is %s, which has no default address: set %s.provider.baseUrl (%s_BASE_URL)" $worker $provider.name $worker $prefix) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if and .Values.qdrant.enabled .Values.qdrant.url -}}
{{- $errors = append $errors "set either qdrant.enabled (in-chart Qdrant) or qdrant.url (external Qdrant), not both" -}}
{{- end -}}
{{- if and .Values.ingress.enabled (not .Values.ingress.host) -}}
{{- $errors = append $errors "ingress.enabled: set ingress.host" -}}
{{- end -}}
{{- if and .Values.ingress.enabled .Values.ingress.tls.enabled (not .Values.ingress.tls.secretName) -}}
{{- $errors = append $errors "ingress.tls.enabled: set ingress.tls.secretName" -}}
{{- end -}}
{{- $timeouts := .Values.gateway.timeouts -}}
{{- if and .Values.gateway.summaries (ge (int $timeouts.sectionSummaryMs) (int $timeouts.summaryMs)) -}}
{{- $errors = append $errors (printf "gateway.timeouts.sectionSummaryMs (%d) must be less than gateway.timeouts.summaryMs (%d): node summaries may use only part of the summary's deadline" (int $timeouts.sectionSummaryMs) (int $timeouts.summaryMs)) -}}
{{- end -}}
{{- range $component := list "gateway" "store" "embedder" "summarizer" "reranker" -}}
{{- $autoscaling := (index $.Values $component).autoscaling -}}
{{- if and $autoscaling.enabled (gt (int $autoscaling.minReplicas) (int $autoscaling.maxReplicas)) -}}
{{- $errors = append $errors (printf "%s.autoscaling: minReplicas is above maxReplicas" $component) -}}
{{- end -}}
{{- if and $autoscaling.enabled (not (or $autoscaling.targetCPUUtilizationPercentage $autoscaling.targetMemoryUtilizationPercentage)) -}}
{{- $errors = append $errors (printf "%s.autoscaling: set targetCPUUtilizationPercentage or targetMemoryUtilizationPercentage" $component) -}}
{{- end -}}
{{- end -}}
{{- if $errors -}}
{{- fail (printf "\n- %s" (join "\n- " $errors)) -}}
{{- end -}}
{{- end -}}

{{/*
Selects this release's series in PromQL: the namespace and the Services the
ServiceMonitor scrapes (Prometheus names the job after the Service).
*/}}
{{- define "context-hub.promSelector" -}}
{{- $names := list -}}
{{- range $component := list "gateway" "store" "embedder" "summarizer" "reranker" -}}
{{- $names = append $names (include "context-hub.componentName" (dict "root" $ "component" $component)) -}}
{{- end -}}
{{- printf "namespace=\"%s\", job=~\"%s\"" .Release.Namespace (join "|" $names) -}}
{{- end -}}
