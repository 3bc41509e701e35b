{{/*
Labels every object of a component carries: the two the kustomize bases use
(and the selectors match on), Helm's own, and commonLabels.
*/}}
{{- define "kscale.labels" -}}
app.kubernetes.io/name: kscale-{{ .component }}
app.kubernetes.io/part-of: kscale
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
{{- with .root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The selector of a component's pods. */}}
{{- define "kscale.selectorLabels" -}}
app.kubernetes.io/name: kscale-{{ .component }}
{{- end }}

{{/* The labels of a component's pods: the selector, part-of and podLabels. */}}
{{- define "kscale.podLabels" -}}
app.kubernetes.io/name: kscale-{{ .component }}
app.kubernetes.io/part-of: kscale
{{- with .values.podLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The kscale image; the tag defaults to the chart's appVersion. */}}
{{- define "kscale.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* A component's ServiceAccount name. */}}
{{- define "kscale.serviceAccountName" -}}
{{ .values.serviceAccount.name | default (printf "kscale-%s" .component) }}
{{- end }}

{{/* The ServiceAccount of a component, when created. */}}
{{- define "kscale.serviceAccount" -}}
{{- if .values.serviceAccount.create }}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "kscale.serviceAccountName" . }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "kscale.labels" . | nindent 4 }}
  {{- with .values.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- end }}

{{/*
A ClusterRoleBinding or RoleBinding of the component's ServiceAccount to the
role of the same kind and name.
*/}}
{{- define "kscale.binding" -}}
apiVersion: rbac.authorization.k8s.io/v1
kind: {{ .kind }}Binding
metadata:
  name: {{ .name }}
  {{- if eq .kind "Role" }}
  namespace: {{ .namespace | default .root.Release.Namespace }}
  {{- end }}
  labels:
    {{- include "kscale.labels" . | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: {{ .roleKind | default .kind }}
  name: {{ .roleName | default .name }}
subjects:
  - kind: ServiceAccount
    name: {{ include "kscale.serviceAccountName" . }}
    namespace: {{ .root.Release.Namespace }}
{{- end }}

{{/*
A PodDisruptionBudget for a component: minAvailable or maxUnavailable, not both.
*/}}
{{- define "kscale.pdb" -}}
{{- $pdb := .values.podDisruptionBudget }}
{{- if and $pdb.minAvailable $pdb.maxUnavailable }}
{{- fail (printf "%s.podDisruptionBudget: set minAvailable or maxUnavailable, not both" .key) }}
{{- end }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: kscale-{{ .component }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "kscale.labels" . | nindent 4 }}
  {{- with $pdb.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- if $pdb.minAvailable }}
  minAvailable: {{ $pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ $pdb.maxUnavailable | default 1 }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "kscale.selectorLabels" . | nindent 6 }}
{{- end }}

{{/*
The pod-level settings every component shares: service account, priority,
security context (.podSecurityContext when the component sets one, else
the chart's), scheduling and image pull secrets. The default affinity
spreads the replicas over nodes.
*/}}
{{- define "kscale.podSpec" -}}
serviceAccountName: {{ include "kscale.serviceAccountName" . }}
{{- with .values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml (.podSecurityContext | default .root.Values.podSecurityContext) | nindent 2 }}
affinity:
  {{- if .values.affinity }}
  {{- toYaml .values.affinity | nindent 2 }}
  {{- else }}
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              {{- include "kscale.selectorLabels" . | nindent 14 }}
  {{- end }}
{{- with .values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* The container-level settings every component shares. */}}
{{- define "kscale.containerCommon" -}}
image: {{ include "kscale.image" .root }}
imagePullPolicy: {{ .root.Values.image.pullPolicy }}
{{- with .values.resources }}
resources:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .root.Values.containerSecurityContext | nindent 2 }}
{{- end }}

{{/* The liveness probe on the metrics port's /health-check, the path upstream's manifests probe. */}}
{{- define "kscale.livenessProbe" -}}
livenessProbe:
  httpGet:
    path: /health-check
    port: metrics
  periodSeconds: 30
  failureThreshold: 3
{{- end }}

{{/* The readiness probe upstream's VPA recommender and updater manifests add on the same path. */}}
{{- define "kscale.readinessProbe" -}}
readinessProbe:
  httpGet:
    path: /health-check
    port: metrics
  periodSeconds: 10
  failureThreshold: 3
{{- end }}

{{/* The DNS names of a Service, the API server's first. */}}
{{- define "kscale.serviceDNSNames" -}}
- {{ .service }}.{{ .root.Release.Namespace }}.svc
- {{ .service }}.{{ .root.Release.Namespace }}.svc.cluster.local
- {{ .service }}.{{ .root.Release.Namespace }}
- {{ .service }}
{{- end }}

{{/*
cert-manager objects for a component's serving certificate: optionally a
self-signed Issuer and a CA of its own, then the Certificate in the
component's TLS Secret.
*/}}
{{- define "kscale.certManager" -}}
{{- $cm := .values.certManager }}
{{- $issuer := $cm.issuerRef }}
{{- if $cm.createSelfSignedIssuer.enabled }}
{{- $issuer = dict "name" (printf "kscale-%s-ca" .component) "kind" "Issuer" "group" "cert-manager.io" }}
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: kscale-{{ .component }}-selfsigned
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "kscale.labels" . | nindent 4 }}
spec:
  selfSigned: {}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: kscale-{{ .component }}-ca
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "kscale.labels" . | nindent 4 }}
spec:
  isCA: true
  commonName: kscale-{{ .component }}-ca
  secretName: kscale-{{ .component }}-ca
  duration: {{ $cm.createSelfSignedIssuer.duration }}
  renewBefore: {{ $cm.createSelfSignedIssuer.renewBefore }}
  privateKey:
    algorithm: {{ $cm.privateKey.algorithm }}
    size: {{ $cm.privateKey.size }}
  issuerRef:
    name: kscale-{{ .component }}-selfsigned
    kind: Issuer
    group: cert-manager.io
---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: kscale-{{ .component }}-ca
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "kscale.labels" . | nindent 4 }}
spec:
  ca:
    secretName: kscale-{{ .component }}-ca
---
{{- else if not $issuer.name }}
{{- fail (printf "%s.certManager.issuerRef.name: required unless %s.certManager.createSelfSignedIssuer.enabled" .key .key) }}
{{- end }}
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: kscale-{{ .component }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "kscale.labels" . | nindent 4 }}
  {{- with $cm.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  secretName: {{ .values.tls.secretName }}
  commonName: {{ .service }}.{{ .root.Release.Namespace }}.svc
  dnsNames:
    {{- include "kscale.serviceDNSNames" . | nindent 4 }}
  duration: {{ $cm.duration }}
  renewBefore: {{ $cm.renewBefore }}
  privateKey:
    algorithm: {{ $cm.privateKey.algorithm }}
    size: {{ $cm.privateKey.size }}
  issuerRef:
    name: {{ $issuer.name }}
    kind: {{ $issuer.kind }}
    group: {{ $issuer.group }}
{{- end }}
