{{- define "gleaner.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}{{ .Release.Name | trunc 63 | trimSuffix "-" }}{{- else -}}{{ printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}{{- end -}}
{{- end -}}

{{- define "gleaner.labels" -}}
app.kubernetes.io/name: gleaner
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one component: gleaner.selector (dict "root" . "component" "gateway") */}}
{{- define "gleaner.selector" -}}
app.kubernetes.io/name: gleaner
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "gleaner.secretName" -}}
{{- if .Values.secret.create -}}{{ include "gleaner.fullname" . }}{{- else -}}{{ required "secret.existingSecret is required when secret.create is false" .Values.secret.existingSecret }}{{- end -}}
{{- end -}}

{{- define "gleaner.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* Refuses values that would break the deployment, before anything is rendered. */}}
{{- define "gleaner.checks" -}}
{{- $modes := list "internal" "url" "sentinel" "cluster" -}}
{{- if not (has .Values.redis.mode $modes) -}}{{- fail (printf "redis.mode must be one of internal, url, sentinel, cluster, not %q" .Values.redis.mode) -}}{{- end -}}
{{- if and (eq .Values.redis.mode "url") (not .Values.redis.url) -}}{{- fail "redis.url is required with redis.mode url" -}}{{- end -}}
{{- if and (eq .Values.redis.mode "sentinel") (or (not .Values.redis.sentinels) (not .Values.redis.sentinelMaster)) -}}{{- fail "redis.sentinels and redis.sentinelMaster are required with redis.mode sentinel" -}}{{- end -}}
{{- if and (eq .Values.redis.mode "cluster") (not .Values.redis.clusterNodes) -}}{{- fail "redis.clusterNodes is required with redis.mode cluster" -}}{{- end -}}
{{- if and .Values.secret.create (lt (len .Values.secret.gleanerSecret) 16) -}}{{- fail "secret.gleanerSecret must be 16+ characters (e.g. openssl rand -hex 32), or set secret.create=false and secret.existingSecret" -}}{{- end -}}
{{- if le (int .Values.terminationGracePeriodSeconds) (div (int .Values.shutdownDeadlineMs) 1000) -}}{{- fail "terminationGracePeriodSeconds must be longer than shutdownDeadlineMs: running jobs would be killed" -}}{{- end -}}
{{- end -}}

{{/* Environment every service shares: Redis, the prefix, the shutdown deadline, the secret. */}}
{{- define "gleaner.commonEnv" -}}
{{- if eq .Values.redis.mode "internal" }}
- name: REDIS_URL
  value: {{ printf "redis://%s-redis:6379/0" (include "gleaner.fullname" .) | quote }}
{{- else if eq .Values.redis.mode "url" }}
- name: REDIS_URL
  value: {{ .Values.redis.url | quote }}
{{- else if eq .Values.redis.mode "sentinel" }}
- name: REDIS_SENTINELS
  value: {{ .Values.redis.sentinels | quote }}
- name: REDIS_SENTINEL_MASTER
  value: {{ .Values.redis.sentinelMaster | quote }}
{{- else if eq .Values.redis.mode "cluster" }}
- name: REDIS_CLUSTER_NODES
  value: {{ .Values.redis.clusterNodes | quote }}
{{- end }}
{{- if or .Values.redis.password (not .Values.secret.create) }}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef: { name: {{ include "gleaner.secretName" . }}, key: REDIS_PASSWORD, optional: true }
{{- end }}
- name: GLEANER_REDIS_PREFIX
  value: {{ .Values.redis.prefix | quote }}
- name: SHUTDOWN_DEADLINE_MS
  value: {{ .Values.shutdownDeadlineMs | quote }}
- name: GLEANER_SECRET
  valueFrom:
    secretKeyRef: { name: {{ include "gleaner.secretName" . }}, key: GLEANER_SECRET }
{{- range $name, $value := .Values.env }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- end -}}

{{/* The upload store: the gateway and the parser workers. */}}
{{- define "gleaner.documentStoreEnv" -}}
- name: DOCUMENT_STORE
  value: s3
- name: S3_BUCKET
  value: {{ .Values.documentStore.s3.bucket | quote }}
- name: S3_REGION
  value: {{ .Values.documentStore.s3.region | quote }}
{{- with .Values.documentStore.s3.endpoint }}
- name: S3_ENDPOINT
  value: {{ . | quote }}
{{- end }}
- name: S3_FORCE_PATH_STYLE
  value: {{ .Values.documentStore.s3.forcePathStyle | quote }}
{{- if or .Values.documentStore.s3.accessKeyId (not .Values.secret.create) }}
- name: S3_ACCESS_KEY_ID
  valueFrom:
    secretKeyRef: { name: {{ include "gleaner.secretName" . }}, key: S3_ACCESS_KEY_ID, optional: true }
- name: S3_SECRET_ACCESS_KEY
  valueFrom:
    secretKeyRef: { name: {{ include "gleaner.secretName" . }}, key: S3_SECRET_ACCESS_KEY, optional: true }
{{- end }}
{{- end -}}
