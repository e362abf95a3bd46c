{{/* Names, labels and the pieces shared by the worker and the MLLP bridge. */}}

{{- define "deid.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "deid.fullname" -}}
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

{{- define "deid.workerName" -}}
{{- printf "%s-worker" (include "deid.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "deid.mllpName" -}}
{{- printf "%s-mllp" (include "deid.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "deid.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "deid.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: deid
{{- end }}

{{/* Selector labels of one component: call with (dict "ctx" $ "component" "worker"). */}}
{{- define "deid.selectorLabels" -}}
app.kubernetes.io/name: {{ include "deid.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "deid.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "deid.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Image of a component: (dict "ctx" $ "gpu" bool). An empty tag picks the CPU or CUDA build. */}}
{{- define "deid.image" -}}
{{- $image := .ctx.Values.image }}
{{- $suffix := ternary "cuda" "cpu" .gpu }}
{{- $tag := default (printf "%s-%s" .ctx.Chart.AppVersion $suffix) $image.tag }}
{{- printf "%s:%s" $image.repository $tag }}
{{- end }}

{{/* Mount points of the Secrets turned into files. */}}
{{- define "deid.kafkaCaDir" -}}/etc/deid/kafka-ca{{- end }}
{{- define "deid.kafkaClientDir" -}}/etc/deid/kafka-client{{- end }}
{{- define "deid.redisCaDir" -}}/etc/deid/redis-ca{{- end }}
{{- define "deid.mllpTlsDir" -}}/etc/deid/mllp-tls{{- end }}
{{- define "deid.cacheDir" -}}/var/cache/deid{{- end }}

{{- define "deid.saslEnabled" -}}
{{- if hasPrefix "SASL_" .Values.kafka.securityProtocol }}true{{- end }}
{{- end }}

{{- define "deid.kafkaTlsEnabled" -}}
{{- if hasSuffix "SSL" .Values.kafka.securityProtocol }}true{{- end }}
{{- end }}

{{/* Largest replica count worth running: idle consumers beyond the partition count do nothing. */}}
{{- define "deid.maxReplicas" -}}
{{- min .max .ctx.Values.kafka.partitions }}
{{- end }}

{{/* Container securityContext shared by every container of the chart. */}}
{{- define "deid.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
runAsUser: {{ .Values.runAsUser }}
runAsGroup: {{ .Values.runAsGroup }}
capabilities:
  drop:
    - ALL
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{- define "deid.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.runAsUser }}
runAsGroup: {{ .Values.runAsGroup }}
fsGroup: {{ .Values.runAsGroup }}
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{/* Environment from referenced Secrets: Kafka SASL. Values never appear in the manifests. */}}
{{- define "deid.kafkaSecretEnv" -}}
{{- if include "deid.saslEnabled" . }}
{{- $sasl := .Values.kafka.sasl }}
- name: DEID_KAFKA__SASL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ required "kafka.sasl.existingSecret is required with a SASL_* securityProtocol" $sasl.existingSecret }}
      key: {{ $sasl.passwordKey }}
{{- if $sasl.usernameKey }}
- name: DEID_KAFKA__SASL_USERNAME
  valueFrom:
    secretKeyRef:
      name: {{ $sasl.existingSecret }}
      key: {{ $sasl.usernameKey }}
{{- end }}
{{- end }}
{{- end }}

{{- define "deid.kafkaVolumeMounts" -}}
{{- if and (include "deid.kafkaTlsEnabled" .) .Values.kafka.tls.existingSecret }}
- name: kafka-ca
  mountPath: {{ include "deid.kafkaCaDir" . }}
  readOnly: true
{{- end }}
{{- if and (include "deid.kafkaTlsEnabled" .) .Values.kafka.tls.clientSecret }}
- name: kafka-client
  mountPath: {{ include "deid.kafkaClientDir" . }}
  readOnly: true
{{- end }}
{{- end }}

{{- define "deid.kafkaVolumes" -}}
{{- $tls := .Values.kafka.tls }}
{{- if and (include "deid.kafkaTlsEnabled" .) $tls.existingSecret }}
- name: kafka-ca
  secret:
    secretName: {{ $tls.existingSecret }}
    defaultMode: 0440
    items:
      - key: {{ $tls.caKey }}
        path: ca.crt
{{- end }}
{{- if and (include "deid.kafkaTlsEnabled" .) $tls.clientSecret }}
- name: kafka-client
  secret:
    secretName: {{ $tls.clientSecret }}
    defaultMode: 0440
    items:
      - key: {{ $tls.certKey }}
        path: tls.crt
      - key: {{ $tls.keyKey }}
        path: tls.key
{{- end }}
{{- end }}

{{/* Scratch space on a read-only root filesystem. */}}
{{- define "deid.scratchVolumes" -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ .Values.tmp.sizeLimit }}
- name: cache
  emptyDir:
    sizeLimit: {{ .Values.cache.sizeLimit }}
{{- end }}

{{- define "deid.scratchVolumeMounts" -}}
- name: tmp
  mountPath: /tmp
- name: cache
  mountPath: {{ include "deid.cacheDir" . }}
{{- end }}

{{/* Refuse contradictory values before rendering anything. */}}
{{- define "deid.validate" -}}
{{- if and .Values.keda.enabled .Values.hpa.enabled }}
{{- fail "keda.enabled and hpa.enabled are mutually exclusive: two autoscalers would fight over the worker's replica count" }}
{{- end }}
{{- if and (not (or .Values.keda.enabled .Values.hpa.enabled)) (gt (int .Values.worker.replicas) (int .Values.kafka.partitions)) }}
{{- fail "worker.replicas exceeds kafka.partitions: the extra workers would get no partition and never become ready" }}
{{- end }}
{{- if .Values.keda.enabled }}
{{- if gt (int .Values.keda.minReplicas) (int (include "deid.maxReplicas" (dict "ctx" . "max" .Values.keda.maxReplicas))) }}
{{- fail "keda.minReplicas exceeds min(keda.maxReplicas, kafka.partitions)" }}
{{- end }}
{{- end }}
{{- if .Values.hpa.enabled }}
{{- if gt (int .Values.hpa.minReplicas) (int (include "deid.maxReplicas" (dict "ctx" . "max" .Values.hpa.maxReplicas))) }}
{{- fail "hpa.minReplicas exceeds min(hpa.maxReplicas, kafka.partitions)" }}
{{- end }}
{{- end }}
{{- if and .Values.kafka.tls.clientSecret (not (include "deid.kafkaTlsEnabled" .)) }}
{{- fail "kafka.tls.clientSecret needs securityProtocol SSL or SASL_SSL" }}
{{- end }}
{{- end }}
