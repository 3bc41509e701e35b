package live

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/kscale/kscale/internal/cmstore"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
)

// LastUpdatedAnnotation carries the time of the last status write, as
// upstream's.
const LastUpdatedAnnotation = "cluster-autoscaler.kubernetes.io/last-updated"

// Status values of the status document, upstream's spelling.
const (
	AutoscalerInitializing = "Initializing"
	AutoscalerRunning      = "Running"
	HealthHealthy          = "Healthy"
	HealthUnhealthy        = "Unhealthy"
	ScaleUpNoActivity      = "NoActivity"
	ScaleUpInProgress      = "InProgress"
	ScaleUpBackoff         = "Backoff"
	ScaleDownNoCandidates  = "NoCandidates"
	ScaleDownCandidates    = "CandidatesPresent"
)

// Unhealthy thresholds of a node group, upstream's defaults: more than
// okTotalUnready unready nodes and more than maxUnreadyPercent of them.
const (
	okTotalUnready    = 3
	maxUnreadyPercent = 45
)

// StatusDocument is the YAML stored under the "status" key of the
// cluster-autoscaler-status ConfigMap, in upstream's layout (cluster
// autoscaler 1.30 and later).
type StatusDocument struct {
	Time             string        `json:"time"`
	AutoscalerStatus string        `json:"autoscalerStatus"`
	Message          string        `json:"message,omitempty"`
	ClusterWide      ClusterStatus `json:"clusterWide"`
	NodeGroups       []GroupStatus `json:"nodeGroups,omitempty"`
}

// ClusterStatus is the clusterWide section.
type ClusterStatus struct {
	Health    HealthCondition     `json:"health"`
	ScaleUp   Condition           `json:"scaleUp"`
	ScaleDown *ScaleDownCondition `json:"scaleDown,omitempty"`
}

// GroupStatus is one entry of nodeGroups.
type GroupStatus struct {
	Name      string              `json:"name"`
	Health    HealthCondition     `json:"health"`
	ScaleUp   ScaleUpCondition    `json:"scaleUp"`
	ScaleDown *ScaleDownCondition `json:"scaleDown,omitempty"`
	// TemplateMismatch is kscale's: present while the group's real nodes
	// differ from its template (see docs/node-autoscaler.md).
	TemplateMismatch *MismatchCondition `json:"templateMismatch,omitempty"`
}

// MismatchCondition says how a group's real nodes differ from its
// template and which pods it is not scaled up for.
type MismatchCondition struct {
	Status             string      `json:"status"`
	Message            string      `json:"message"`
	LastProbeTime      metav1.Time `json:"lastProbeTime"`
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
}

// TemplateMismatchStatus is the status of a group's templateMismatch
// condition.
const TemplateMismatchStatus = "Mismatch"

// Condition is a status with its probe and transition times.
type Condition struct {
	Status             string      `json:"status"`
	LastProbeTime      metav1.Time `json:"lastProbeTime"`
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
}

// HealthCondition adds node counts and, for groups, sizes.
type HealthCondition struct {
	Status              string      `json:"status"`
	NodeCounts          NodeCounts  `json:"nodeCounts"`
	CloudProviderTarget *int        `json:"cloudProviderTarget,omitempty"`
	MinSize             *int        `json:"minSize,omitempty"`
	MaxSize             *int        `json:"maxSize,omitempty"`
	LastProbeTime       metav1.Time `json:"lastProbeTime"`
	LastTransitionTime  metav1.Time `json:"lastTransitionTime,omitempty"`
}

// ScaleUpCondition adds backoff details and, beyond upstream's layout, a
// message when the provider cannot describe the group's new nodes.
type ScaleUpCondition struct {
	Status             string       `json:"status"`
	BackoffInfo        *BackoffInfo `json:"backoffInfo,omitempty"`
	Message            string       `json:"message,omitempty"`
	LastProbeTime      metav1.Time  `json:"lastProbeTime"`
	LastTransitionTime metav1.Time  `json:"lastTransitionTime,omitempty"`
}

// BackoffInfo explains a backoff.
type BackoffInfo struct {
	ErrorCode    string `json:"errorCode"`
	ErrorMessage string `json:"errorMessage"`
}

// ScaleDownCondition adds the number of candidates: nodes scale-down
// found unneeded (left out when there are none, as upstream does).
type ScaleDownCondition struct {
	Status             string      `json:"status"`
	Candidates         int         `json:"candidates,omitempty"`
	LastProbeTime      metav1.Time `json:"lastProbeTime"`
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
}

// NodeCounts are the node counts of a group or the cluster.
type NodeCounts struct {
	Registered       RegisteredCounts `json:"registered"`
	LongUnregistered int              `json:"longUnregistered"`
	Unregistered     int              `json:"unregistered"`
}

// RegisteredCounts count registered nodes by readiness.
type RegisteredCounts struct {
	Total          int           `json:"total"`
	Ready          int           `json:"ready"`
	NotStarted     int           `json:"notStarted"`
	BeingDeleted   int           `json:"beingDeleted,omitempty"`
	Unready        UnreadyCounts `json:"unready"`
	LongNotStarted int           `json:"longNotStarted,omitempty"`
}

// UnreadyCounts count unready nodes.
type UnreadyCounts struct {
	Total           int `json:"total"`
	ResourceUnready int `json:"resourceUnready"`
}

// StatusWriter writes the status ConfigMap, remembering when each status
// last changed.
type StatusWriter struct {
	client      kubernetes.Interface
	namespace   string
	name        string
	transitions map[string]transition
	// uid is the UID of the ConfigMap last written, for the events that
	// refer to it.
	uid atomic.Value
	// store writes the ConfigMap: one update of the object last written, a
	// read only after a conflict or deletion. Built on the first write.
	store *cmstore.Store
	// refresh, when positive, lets Write skip a document that differs from
	// the last one written only in its probe times and node counts, until
	// the last write is refresh old (see Refresh).
	refresh time.Duration
	// lastKey is the last written document without its volatile parts, and
	// lastAt the time of that write.
	lastKey []byte
	lastAt  time.Time
}

type transition struct {
	status string
	at     time.Time
}

// NewStatusWriter returns a writer for the ConfigMap in namespace.
func NewStatusWriter(client kubernetes.Interface, namespace string) *StatusWriter {
	return &StatusWriter{client: client, namespace: namespace, name: StatusConfigMapName, transitions: map[string]transition{}}
}

// Named makes the writer write the ConfigMap name (--status-config-map-name)
// instead of StatusConfigMapName, and returns it; call it before the first
// Write.
func (w *StatusWriter) Named(name string) *StatusWriter {
	w.name = name
	return w
}

// Refresh makes Write skip a document whose only news are its probe
// times and node counts until the last write is d old, and returns the
// writer. Upstream writes after every loop, once per --scan-interval; with
// frequent loops kscale runs a loop a second or more while a scale-up's
// nodes register, each changing the counts, and a write per loop would be
// most of its requests (and wait on the client's --kube-client-qps budget
// between loops). With d = --scan-interval the counts are as fresh as
// upstream's, and every change of a status, a target size or the message
// still shows after the loop that made it.
func (w *StatusWriter) Refresh(d time.Duration) *StatusWriter {
	w.refresh = d
	return w
}

// Write renders the document and creates or updates the ConfigMap.
func (w *StatusWriter) Write(ctx context.Context, doc StatusDocument, now time.Time) error {
	data, err := yaml.Marshal(doc)
	if err != nil {
		return fmt.Errorf("rendering status: %w", err)
	}
	key, err := yaml.Marshal(withoutVolatile(doc))
	if err != nil {
		return fmt.Errorf("rendering status: %w", err)
	}
	if w.refresh > 0 && w.lastKey != nil && now.Sub(w.lastAt) < w.refresh && bytes.Equal(key, w.lastKey) {
		return nil
	}
	if w.store == nil {
		if w.store, err = cmstore.New(cmstore.Config{Client: w.client, Namespace: w.namespace, Name: w.name, Key: StatusConfigMapKey}); err != nil {
			return fmt.Errorf("writing status: %w", err)
		}
	}
	stamp := now.UTC().Format("2006-01-02 15:04:05.999999999 -0700 MST")
	if err := w.store.SaveAnnotated(ctx, data, map[string]string{LastUpdatedAnnotation: stamp}); err != nil {
		return fmt.Errorf("writing status: %w", err)
	}
	w.uid.Store(w.store.UID())
	w.lastKey, w.lastAt = key, now
	return nil
}

// withoutVolatile returns doc without what changes without a decision or a
// status changing: the times every loop changes and the node counts.
func withoutVolatile(doc StatusDocument) StatusDocument {
	doc.Time = ""
	cw := &doc.ClusterWide
	cw.Health.LastProbeTime, cw.ScaleUp.LastProbeTime = metav1.Time{}, metav1.Time{}
	cw.Health.NodeCounts = NodeCounts{}
	if cw.ScaleDown != nil {
		sd := *cw.ScaleDown
		sd.LastProbeTime, cw.ScaleDown = metav1.Time{}, &sd
	}
	doc.NodeGroups = slices.Clone(doc.NodeGroups)
	for i := range doc.NodeGroups {
		g := &doc.NodeGroups[i]
		g.Health.LastProbeTime, g.ScaleUp.LastProbeTime = metav1.Time{}, metav1.Time{}
		g.Health.NodeCounts = NodeCounts{}
		if g.ScaleDown != nil {
			sd := *g.ScaleDown
			sd.LastProbeTime, g.ScaleDown = metav1.Time{}, &sd
		}
		if g.TemplateMismatch != nil {
			m := *g.TemplateMismatch
			m.LastProbeTime, g.TemplateMismatch = metav1.Time{}, &m
		}
	}
	return doc
}

// UID returns the UID of the ConfigMap as last written, "" before the
// first write. Upstream records its status events against the object its
// last write returned, so they carry this UID; it is safe to call
// concurrently with Write.
func (w *StatusWriter) UID() types.UID {
	uid, _ := w.uid.Load().(types.UID)
	return uid
}

// StatusInput is what one loop knows for the status document.
type StatusInput struct {
	// Now is the loop time.
	Now time.Time
	// Running is false until the first loop succeeded.
	Running bool
	// Message explains the last loop's failure, if any.
	Message string
	// Groups are the groups' states after the loop.
	Groups []clusterstate.GroupState
	// ScaleDownCandidates are the unneeded nodes per group (the loop's
	// ScaleDownCandidates); nil leaves the scaleDown sections out
	// (scale-down not wired), empty reports NoCandidates everywhere.
	ScaleDownCandidates map[string]int
}

// Document builds the status document, tracking transition times.
func (w *StatusWriter) Document(in StatusInput) StatusDocument {
	now := metav1.NewTime(in.Now.UTC())
	doc := StatusDocument{Time: in.Now.UTC().Format("2006-01-02 15:04:05.999999999 -0700 MST"), AutoscalerStatus: AutoscalerInitializing, Message: in.Message}
	if in.Running {
		doc.AutoscalerStatus = AutoscalerRunning
	}
	var total clusterstate.Readiness
	up, candidates := ScaleUpNoActivity, 0
	for _, g := range in.Groups {
		gs := w.groupStatus(g, in, now)
		doc.NodeGroups = append(doc.NodeGroups, gs)
		total = addReadiness(total, g.Readiness)
		if gs.ScaleUp.Status == ScaleUpInProgress {
			up = ScaleUpInProgress
		}
		candidates += in.ScaleDownCandidates[g.Group.ID]
	}
	health := healthOf(total)
	doc.ClusterWide.Health = HealthCondition{Status: health, NodeCounts: counts(total), LastProbeTime: now,
		LastTransitionTime: w.transition("cluster/health", health, now)}
	doc.ClusterWide.ScaleUp = Condition{Status: up, LastProbeTime: now, LastTransitionTime: w.transition("cluster/scaleUp", up, now)}
	if in.ScaleDownCandidates != nil {
		doc.ClusterWide.ScaleDown = w.scaleDown("cluster", candidates, now)
	}
	return doc
}

func (w *StatusWriter) groupStatus(g clusterstate.GroupState, in StatusInput, now metav1.Time) GroupStatus {
	id := g.Group.ID
	target, minSize, maxSize := g.Group.TargetSize, g.Group.MinSize, g.Group.MaxSize
	health := healthOf(g.Readiness)
	gs := GroupStatus{Name: id, Health: HealthCondition{Status: health, NodeCounts: counts(g.Readiness),
		CloudProviderTarget: &target, MinSize: &minSize, MaxSize: &maxSize, LastProbeTime: now,
		LastTransitionTime: w.transition(id+"/health", health, now)}}
	up := ScaleUpNoActivity
	switch {
	case g.Backoff.BackedOff:
		up = ScaleUpBackoff
		gs.ScaleUp.BackoffInfo = &BackoffInfo{ErrorCode: g.Backoff.Reason.Code, ErrorMessage: g.Backoff.Reason.Message}
	case g.ScaleUpInProgress:
		up = ScaleUpInProgress
	}
	gs.ScaleUp.Status, gs.ScaleUp.LastProbeTime, gs.ScaleUp.LastTransitionTime = up, now, w.transition(id+"/scaleUp", up, now)
	if why := g.Group.Template.UnavailableReason; why != "" {
		gs.ScaleUp.Message = "the cloud provider cannot describe new nodes (" + why + "); the group grows only from a copy of one of its live nodes"
	}
	if in.ScaleDownCandidates != nil {
		gs.ScaleDown = w.scaleDown(id, in.ScaleDownCandidates[id], now)
	}
	mismatch := ""
	if g.TemplateMismatch != "" {
		mismatch = TemplateMismatchStatus
		gs.TemplateMismatch = &MismatchCondition{Status: mismatch, Message: g.TemplateMismatch, LastProbeTime: now}
	}
	if at := w.transition(id+"/templateMismatch", mismatch, now); gs.TemplateMismatch != nil {
		gs.TemplateMismatch.LastTransitionTime = at
	}
	return gs
}

func (w *StatusWriter) scaleDown(key string, candidates int, now metav1.Time) *ScaleDownCondition {
	s := ScaleDownNoCandidates
	if candidates > 0 {
		s = ScaleDownCandidates
	}
	return &ScaleDownCondition{Status: s, Candidates: candidates, LastProbeTime: now, LastTransitionTime: w.transition(key+"/scaleDown", s, now)}
}

// transition returns when the status under key last changed.
func (w *StatusWriter) transition(key, status string, now metav1.Time) metav1.Time {
	t, ok := w.transitions[key]
	if !ok || t.status != status {
		t = transition{status: status, at: now.Time}
		w.transitions[key] = t
	}
	return metav1.NewTime(t.at)
}

func healthOf(r clusterstate.Readiness) string {
	unready := r.Unready + r.LongNotStarted + r.LongUnregistered
	all := r.Registered() + r.LongUnregistered
	if unready > okTotalUnready && unready*100 > maxUnreadyPercent*all {
		return HealthUnhealthy
	}
	return HealthHealthy
}

func counts(r clusterstate.Readiness) NodeCounts {
	return NodeCounts{
		Registered: RegisteredCounts{Total: r.Registered(), Ready: r.Ready, NotStarted: r.NotStarted + r.LongNotStarted,
			LongNotStarted: r.LongNotStarted, BeingDeleted: r.Deleted, Unready: UnreadyCounts{Total: r.Unready}},
		LongUnregistered: r.LongUnregistered, Unregistered: r.Unregistered,
	}
}

func addReadiness(a, b clusterstate.Readiness) clusterstate.Readiness {
	return clusterstate.Readiness{Ready: a.Ready + b.Ready, Unready: a.Unready + b.Unready, NotStarted: a.NotStarted + b.NotStarted,
		LongNotStarted: a.LongNotStarted + b.LongNotStarted, Deleted: a.Deleted + b.Deleted,
		Unregistered: a.Unregistered + b.Unregistered, LongUnregistered: a.LongUnregistered + b.LongUnregistered}
}
