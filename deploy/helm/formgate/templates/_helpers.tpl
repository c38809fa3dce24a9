{{- define "formgate.labels" -}}
app.kubernetes.io/name: formgate
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "formgate.selectorLabels" -}}
app.kubernetes.io/name: formgate
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: server
{{- end -}}

{{- define "formgate.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "formgate.secretName" -}}
{{ .Values.existingSecret | default (printf "%s-formgate" .Release.Name) }}
{{- end -}}

{{/* The Secret's keys, each mounted as a file and read through <KEY>_FILE. */}}
{{- define "formgate.secretKeys" -}}
{{- if .Values.existingSecret -}}
{{ join " " .Values.existingSecretKeys }}
{{- else -}}
DATABASE_URL REDIS_URL{{ if .Values.smtpUrl }} SMTP_URL{{ end }}{{ if .Values.admin.password }} ADMIN_PASSWORD{{ end }}
{{- end -}}
{{- end -}}

{{/* <KEY>_FILE for each key of the Secret, mounted at /run/secrets/formgate (the secrets volume). */}}
{{- define "formgate.secretFileEnv" -}}
{{- range $key := splitList " " (include "formgate.secretKeys" .) }}
- name: {{ $key }}_FILE
  value: /run/secrets/formgate/{{ $key }}
{{- end }}
{{- end -}}

{{- define "formgate.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "formgate.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
{{- end -}}
