{{/* Chart name, truncated to the 63 characters of a DNS label. */}}
{{- define "urltree.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified name of the release's objects. */}}
{{- define "urltree.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "urltree.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "urltree.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "urltree.selectorLabels" -}}
app.kubernetes.io/name: {{ include "urltree.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "urltree.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "urltree.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The config as the worker reads it: the user's sections with the chart-managed fields set. */}}
{{- define "urltree.configMap" -}}
{{- $config := deepCopy (default dict .Values.config) }}
{{- $state := default dict (get $config "state") }}
{{- $_ := set $state "path" "/var/lib/urltree" }}
{{- $_ = set $config "state" $state }}
{{- $kafka := default dict (get $config "kafka") }}
{{- $_ = set $kafka "http_listen" (printf "0.0.0.0:%d" (int .Values.metricsPort)) }}
{{- if .Values.kafka.tls.enabled }}
{{- $props := default dict (get $kafka "properties") }}
{{- if not .Values.kafka.sasl.enabled }}
{{- $_ = set $props "security.protocol" "SSL" }}
{{- end }}
{{- if .Values.kafka.tls.caKey }}
{{- $_ = set $props "ssl.ca.location" (printf "/etc/urltree/tls/%s" .Values.kafka.tls.caKey) }}
{{- end }}
{{- if .Values.kafka.tls.certKey }}
{{- $_ = set $props "ssl.certificate.location" (printf "/etc/urltree/tls/%s" .Values.kafka.tls.certKey) }}
{{- $_ = set $props "ssl.key.location" (printf "/etc/urltree/tls/%s" .Values.kafka.tls.keyKey) }}
{{- end }}
{{- $_ = set $kafka "properties" $props }}
{{- end }}
{{- if .Values.kafka.sasl.enabled }}
{{- $props := default dict (get $kafka "properties") }}
{{- $_ = set $props "security.protocol" .Values.kafka.sasl.securityProtocol }}
{{- $_ = set $props "sasl.mechanisms" .Values.kafka.sasl.mechanism }}
{{- $_ = set $kafka "properties" $props }}
{{- end }}
{{- $_ = set $config "kafka" $kafka }}
{{- $rules := default dict (get $config "rules") }}
{{- $_ = set $rules "file" "/etc/urltree/config/url-rules.json" }}
{{- $_ = set $config "rules" $rules }}
{{- include "urltree.toml.table" (list "" $config) }}
{{- end }}

{{/* The configured graceful-shutdown deadline, in seconds (the binary's default is 30). */}}
{{- define "urltree.shutdownSeconds" -}}
{{- $kafka := default dict (get (default dict .Values.config) "kafka") }}
{{- int (default 30 (get $kafka "shutdown_timeout_secs")) }}
{{- end }}

{{/* One TOML value: strings quoted (JSON escapes are TOML escapes), whole numbers as integers. */}}
{{- define "urltree.toml.value" -}}
{{- if kindIs "string" . }}{{ toJson . }}
{{- else if kindIs "bool" . }}{{ . }}
{{- else if kindIs "float64" . }}{{ if eq (float64 (int64 .)) . }}{{ int64 . }}{{ else }}{{ . }}{{ end }}
{{- else if kindIs "slice" . }}[{{ range $i, $e := . }}{{ if $i }}, {{ end }}{{ include "urltree.toml.value" $e }}{{ end }}]
{{- else }}{{ . }}
{{- end }}
{{- end }}

{{/* A TOML key: bare when it can be, else quoted. */}}
{{- define "urltree.toml.key" -}}
{{- if regexMatch "^[A-Za-z0-9_-]+$" . }}{{ . }}{{ else }}{{ toJson . }}{{ end }}
{{- end }}

{{/* A TOML table and its sub-tables: (list "dotted.path" map). Null values are left out. */}}
{{- define "urltree.toml.table" -}}
{{- $path := index . 0 }}
{{- $table := index . 1 }}
{{- $hasScalars := false }}
{{- range $k, $v := $table }}{{ if and (not (kindIs "map" $v)) (not (kindIs "invalid" $v)) }}{{ $hasScalars = true }}{{ end }}{{ end }}
{{- if and $path $hasScalars }}
[{{ $path }}]
{{- end }}
{{- range $k, $v := $table }}
{{- if and (not (kindIs "map" $v)) (not (kindIs "invalid" $v)) }}
{{ include "urltree.toml.key" $k }} = {{ include "urltree.toml.value" $v }}
{{- end }}
{{- end }}
{{- range $k, $v := $table }}
{{- if kindIs "map" $v }}
{{- $sub := include "urltree.toml.key" $k }}
{{- if $path }}{{ $sub = printf "%s.%s" $path $sub }}{{ end }}
{{- $out := include "urltree.toml.table" (list $sub $v) }}
{{- if $out }}
{{ $out }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
