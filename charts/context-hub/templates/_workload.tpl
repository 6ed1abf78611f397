{{/*
The objects every service has, built the same way for all five. Each is called
from templates/<service>/<kind>.yaml with
(dict "root" $ "component" "<service>") and, for the Deployment, "env": the
service's own environment variables as a YAML list.
*/}}

{{/* A service's Deployment. The gateway speaks HTTP; the others gRPC with an HTTP ops port. */}}
{{- define "context-hub.deployment" -}}
{{- $root := .root -}}
{{- $component := .component -}}
{{- $values := index $root.Values $component -}}
{{- $isGateway := eq $component "gateway" -}}
{{- $hasCache := has $component (list "embedder" "reranker") -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "context-hub.componentName" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "context-hub.labels" . | nindent 4 }}
spec:
  {{- if not $values.autoscaling.enabled }}
  replicas: {{ $values.replicaCount }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "context-hub.selectorLabels" . | nindent 6 }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      # New pods become ready before old ones stop, so capacity never dips.
      maxSurge: 25%
      maxUnavailable: 0
  template:
    metadata:
      labels:
        {{- include "context-hub.labels" . | nindent 8 }}
        {{- with $values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with $values.podAnnotations }}
      annotations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    spec:
      serviceAccountName: {{ include "context-hub.serviceAccountName" . }}
      automountServiceAccountToken: false
      # The services are configured only by the variables below, never by
      # Kubernetes' injected *_PORT/*_HOST service links.
      enableServiceLinks: false
      terminationGracePeriodSeconds: {{ $values.terminationGracePeriodSeconds }}
      securityContext:
        {{- include "context-hub.podSecurityContext" $root | nindent 8 }}
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- if $hasCache }}
      initContainers:
        # Copies the word-vector cache pre-warmed into the image (when the
        # image has one) into the writable cache volume, so the service starts
        # without rebuilding it from the vectors' JSON.
        - name: seed-cache
          image: {{ include "context-hub.image" $root }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          command:
            - node
            - -e
            - "const fs = require('node:fs'); const from = '/app/.cache/context-hub'; if (fs.existsSync(from)) fs.cpSync(from, process.argv[1], { recursive: true });"
            - /var/cache/context-hub
          resources:
            requests:
              cpu: 50m
              memory: 64Mi
            limits:
              memory: 128Mi
          securityContext:
            {{- include "context-hub.containerSecurityContext" $root | nindent 12 }}
          volumeMounts:
            - name: cache
              mountPath: /var/cache/context-hub
      {{- end }}
      containers:
        - name: {{ $component }}
          image: {{ include "context-hub.image" $root }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          command:
            - node
            - {{ printf "services/%s/dist/main.js" $component }}
          ports:
            {{- if $isGateway }}
            - name: http
              containerPort: {{ $values.port }}
              protocol: TCP
            {{- else }}
            - name: grpc
              containerPort: {{ $values.port }}
              protocol: TCP
            - name: ops
              containerPort: {{ $values.opsPort }}
              protocol: TCP
            {{- end }}
          env:
            {{- include "context-hub.commonEnv" . | nindent 12 }}
            {{- .env | nindent 12 }}
            {{- with $values.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- /* Only the workers have a provider map; Helm before 3.10 evaluates every argument of `and`, so no field of a missing map is read. */}}
          {{- $provider := $values.provider | default dict }}
          {{- if $provider.existingSecret }}
          envFrom:
            - secretRef:
                name: {{ $provider.existingSecret }}
          {{- end }}
          {{- if $isGateway }}
          startupProbe:
            httpGet:
              path: /healthz
              port: http
            periodSeconds: 2
            failureThreshold: 30
          livenessProbe:
            httpGet:
              path: /healthz
              port: http
            periodSeconds: 10
            timeoutSeconds: 3
            failureThreshold: 3
          readinessProbe:
            httpGet:
              path: /readyz
              port: http
            periodSeconds: 5
            timeoutSeconds: 3
            failureThreshold: 2
          {{- else }}
          # grpc.health.v1 on the main port: the process serves gRPC at all.
          startupProbe:
            grpc:
              port: {{ $values.port }}
            periodSeconds: 2
            failureThreshold: 60
          livenessProbe:
            grpc:
              port: {{ $values.port }}
            periodSeconds: 10
            timeoutSeconds: 3
            failureThreshold: 3
          # /readyz on the ops port: the service can do useful work (its
          # dependencies answer), so a pod that cannot is taken out of rotation.
          readinessProbe:
            httpGet:
              path: /readyz
              port: ops
            periodSeconds: 5
            timeoutSeconds: 3
            failureThreshold: 2
          {{- end }}
          lifecycle:
            # Endpoints and load balancers take a few seconds to forget a
            # stopping pod; keep serving meanwhile, then SIGTERM drains calls.
            preStop:
              exec:
                command:
                  - /bin/sleep
                  - {{ $values.preStopSleepSeconds | quote }}
          resources:
            {{- toYaml $values.resources | nindent 12 }}
          securityContext:
            {{- include "context-hub.containerSecurityContext" $root | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- if $hasCache }}
            - name: cache
              mountPath: /var/cache/context-hub
            {{- end }}
            {{- if and $isGateway (has "api-key" (splitList "," $root.Values.auth.mode)) }}
            - name: api-keys
              mountPath: /etc/context-hub/api-keys
              readOnly: true
            {{- end }}
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: {{ $root.Values.tmpDir.sizeLimit }}
        {{- if $hasCache }}
        - name: cache
          emptyDir:
            sizeLimit: {{ $values.cache.sizeLimit }}
        {{- end }}
        {{- if and $isGateway (has "api-key" (splitList "," $root.Values.auth.mode)) }}
        # The whole Secret, not a subPath, so a rotated key file reaches the pod.
        - name: api-keys
          secret:
            secretName: {{ $root.Values.auth.apiKeys.existingSecret }}
        {{- end }}
      {{- with $values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $values.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with (include "context-hub.topologySpread" . | trim) }}
      topologySpreadConstraints:
        {{- . | nindent 8 }}
      {{- end }}
{{- end -}}

{{/*
A service's Service. The gRPC services are headless so the gateway resolves
every ready pod and can spread calls over them (a ClusterIP would pin each
long-lived HTTP/2 connection to one pod).
*/}}
{{- define "context-hub.service" -}}
{{- $root := .root -}}
{{- $values := index $root.Values .component -}}
{{- $isGateway := eq .component "gateway" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "context-hub.componentName" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "context-hub.labels" . | nindent 4 }}
  {{- with $values.service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- if $isGateway }}
  type: {{ $values.service.type }}
  {{- else }}
  type: ClusterIP
  clusterIP: None
  {{- end }}
  selector:
    {{- include "context-hub.selectorLabels" . | nindent 4 }}
  ports:
    {{- if $isGateway }}
    - name: http
      port: {{ $values.port }}
      targetPort: http
      protocol: TCP
      appProtocol: http
    {{- else }}
    - name: grpc
      port: {{ $values.port }}
      targetPort: grpc
      protocol: TCP
      appProtocol: kubernetes.io/h2c
    - name: ops
      port: {{ $values.opsPort }}
      targetPort: ops
      protocol: TCP
      appProtocol: http
    {{- end }}
{{- end -}}

{{/* A service's HorizontalPodAutoscaler, when autoscaling is on. */}}
{{- define "context-hub.hpa" -}}
{{- $root := .root -}}
{{- $values := index $root.Values .component -}}
{{- if $values.autoscaling.enabled -}}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "context-hub.componentName" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "context-hub.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "context-hub.componentName" . }}
  minReplicas: {{ $values.autoscaling.minReplicas }}
  maxReplicas: {{ $values.autoscaling.maxReplicas }}
  metrics:
    {{- with $values.autoscaling.targetCPUUtilizationPercentage }}
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ . }}
    {{- end }}
    {{- with $values.autoscaling.targetMemoryUtilizationPercentage }}
    - type: Resource
      resource:
        name: memory
        target:
          type: Utilization
          averageUtilization: {{ . }}
    {{- end }}
  behavior:
    scaleDown:
      # Scale in slowly: a drained pod's callers reconnect elsewhere.
      stabilizationWindowSeconds: 300
      policies:
        - type: Pods
          value: 1
          periodSeconds: 60
{{- end -}}
{{- end -}}

{{/* A service's PodDisruptionBudget, when enabled. */}}
{{- define "context-hub.pdb" -}}
{{- $root := .root -}}
{{- $values := index $root.Values .component -}}
{{- if $values.podDisruptionBudget.enabled -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "context-hub.componentName" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "context-hub.labels" . | nindent 4 }}
spec:
  maxUnavailable: {{ $values.podDisruptionBudget.maxUnavailable }}
  selector:
    matchLabels:
      {{- include "context-hub.selectorLabels" . | nindent 6 }}
{{- end -}}
{{- end -}}

{{/* A service's ServiceAccount, when created. No service calls the Kubernetes API. */}}
{{- define "context-hub.serviceAccount" -}}
{{- $root := .root -}}
{{- $values := index $root.Values .component -}}
{{- if $values.serviceAccount.create -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "context-hub.serviceAccountName" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "context-hub.labels" . | nindent 4 }}
  {{- with $values.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
automountServiceAccountToken: false
{{- end -}}
{{- end -}}
