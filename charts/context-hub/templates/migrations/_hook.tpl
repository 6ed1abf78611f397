{{/*
When the migrations hook runs. With an external database it runs before any
object of the release exists, so no store replica ever starts on an old schema.
An in-chart database is itself part of the release and does not exist before
install, so on install the Job runs after it (store pods stay unready until the
schema is there); upgrades always migrate first.
*/}}
{{- define "context-hub.migrations.hook" -}}
{{- if or .Values.postgresql.enabled .Values.qdrant.enabled -}}
post-install,pre-upgrade
{{- else -}}
pre-install,pre-upgrade
{{- end -}}
{{- end -}}
