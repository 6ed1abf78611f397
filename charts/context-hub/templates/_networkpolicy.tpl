{{/*
NetworkPolicies. Called with (dict "root" $ "component" "<name>" "ingress"
"<rules>" "egress" "<rules>"), where the rules are YAML lists (possibly empty)
of NetworkPolicyIngressRule / NetworkPolicyEgressRule. Egress is restricted only
when networkPolicy.egress.enabled; DNS is then always allowed.
*/}}
{{- define "context-hub.networkPolicy" -}}
{{- $np := .root.Values.networkPolicy -}}
{{- if $np.enabled -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "context-hub.componentName" . }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "context-hub.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "context-hub.selectorLabels" . | nindent 6 }}
  policyTypes:
    - Ingress
    {{- if $np.egress.enabled }}
    - Egress
    {{- end }}
  {{- with (.ingress | trim) }}
  ingress:
    {{- . | nindent 4 }}
  {{- else }}
  # No rule: nothing may connect to these pods.
  ingress: []
  {{- end }}
  {{- if $np.egress.enabled }}
  egress:
    - ports:
        - port: 53
          protocol: UDP
        - port: 53
          protocol: TCP
    {{- with (.egress | trim) }}
    {{- . | nindent 4 }}
    {{- end }}
  {{- end }}
{{- end -}}
{{- end -}}

{{/* A NetworkPolicyPeer selecting one component's pods of this release. */}}
{{- define "context-hub.peer" -}}
- podSelector:
    matchLabels:
      {{- include "context-hub.selectorLabels" . | nindent 6 }}
{{- end -}}

{{/* Ingress of a gRPC service: its gRPC port from the gateway only, its ops port from metricsFrom. */}}
{{- define "context-hub.grpcServiceIngress" -}}
{{- $values := index .root.Values .component -}}
- from:
    {{- include "context-hub.peer" (dict "root" .root "component" "gateway") | nindent 4 }}
  ports:
    - port: {{ $values.port }}
      protocol: TCP
- ports:
    - port: {{ $values.opsPort }}
      protocol: TCP
  {{- with .root.Values.networkPolicy.metricsFrom }}
  from:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}

{{/* Egress of the store and the migrations Job: the in-chart databases and the store's extra rules. */}}
{{- define "context-hub.databaseEgress" -}}
{{- if .Values.postgresql.enabled }}
- to:
    {{- include "context-hub.peer" (dict "root" . "component" "postgresql") | nindent 4 }}
  ports:
    - port: 5432
      protocol: TCP
{{- end }}
{{- if .Values.qdrant.enabled }}
- to:
    {{- include "context-hub.peer" (dict "root" . "component" "qdrant") | nindent 4 }}
  ports:
    - port: 6333
      protocol: TCP
    - port: 6334
      protocol: TCP
{{- end }}
{{- with .Values.networkPolicy.egress.store }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Egress of the embedder, summarizer and reranker: only their extra rules (provider APIs). */}}
{{- define "context-hub.workerEgress" -}}
{{- with .Values.networkPolicy.egress.workers }}
{{ toYaml . }}
{{- end }}
{{- end -}}
