package live

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// defaultShareLimit bounds each of a sharer's tables: when one holds this
// many distinct values it starts afresh (values already shared stay so).
const defaultShareLimit = 4096

// sharer makes the pods the informer caches share equal parts: the
// replicas of one owner carry equal labels, owner references,
// tolerations, containers (as StripUnread leaves them) and conditions (as
// readConditions leaves them), and each decoded pod arrives with its own
// copy of each. A cached pod is never modified (the
// informers' contract), so one copy serves every pod whose part is equal.
// Each table is bounded; a full table is dropped and filled again, which
// costs sharing, never correctness.
type sharer struct {
	limit int

	mu     sync.Mutex
	key    strings.Builder
	labels map[string]map[string]string
	lists  map[string]corev1.ResourceList
	tols   map[string][]corev1.Toleration
	owners map[string][]metav1.OwnerReference
	ctrs   map[string][]corev1.Container
	conds  map[string][]corev1.PodCondition
}

func newSharer(limit int) *sharer {
	return &sharer{limit: limit, labels: map[string]map[string]string{}, lists: map[string]corev1.ResourceList{},
		tols: map[string][]corev1.Toleration{}, owners: map[string][]metav1.OwnerReference{},
		ctrs: map[string][]corev1.Container{}, conds: map[string][]corev1.PodCondition{}}
}

// transform strips what no decision reads (StripUnread), then shares the
// parts of a pod that equal those of a pod seen before.
func (s *sharer) transform(obj any) (any, error) {
	obj, err := StripUnread(obj)
	if p, ok := obj.(*corev1.Pod); ok && err == nil {
		s.sharePod(p)
	}
	return obj, err
}

func (s *sharer) sharePod(p *corev1.Pod) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p.Labels = share(s, s.labels, p.Labels, writeLabels)
	p.OwnerReferences = share(s, s.owners, p.OwnerReferences, writeOwners)
	p.Spec.Tolerations = share(s, s.tols, p.Spec.Tolerations, writeTolerations)
	p.Status.Conditions = share(s, s.conds, p.Status.Conditions, writeConditions)
	for _, cs := range []*[]corev1.Container{&p.Spec.InitContainers, &p.Spec.Containers} {
		if shared := share(s, s.ctrs, *cs, writeContainers); len(*cs) == 0 || &shared[0] != &(*cs)[0] {
			*cs = shared
			continue
		}
		// Not shared before: its resources may equal other containers'.
		for i := range *cs {
			r := &(*cs)[i].Resources
			r.Requests = share(s, s.lists, r.Requests, writeList)
			r.Limits = share(s, s.lists, r.Limits, writeList)
		}
	}
}

// share returns the table's value for v's key, or records v under it.
// Empty values are returned as they are.
func share[V any](s *sharer, table map[string]V, v V, write func(*strings.Builder, V) bool) V {
	s.key.Reset()
	if !write(&s.key, v) {
		return v
	}
	k := s.key.String()
	if have, ok := table[k]; ok {
		return have
	}
	if len(table) >= s.limit {
		clear(table)
	}
	table[k] = v
	return v
}

func writeLabels(b *strings.Builder, m map[string]string) bool {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		field(b, k)
		field(b, m[k])
	}
	return len(m) > 0
}

func writeList(b *strings.Builder, l corev1.ResourceList) bool {
	names := make([]corev1.ResourceName, 0, len(l))
	for n := range l {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		q := l[n]
		field(b, string(n))
		field(b, q.String())
		field(b, string(q.Format))
	}
	return len(l) > 0
}

func writeTolerations(b *strings.Builder, ts []corev1.Toleration) bool {
	for _, t := range ts {
		field(b, t.Key)
		field(b, string(t.Operator))
		field(b, t.Value)
		field(b, string(t.Effect))
		if t.TolerationSeconds != nil {
			field(b, strconv.FormatInt(*t.TolerationSeconds, 10))
		} else {
			field(b, "-")
		}
	}
	return len(ts) > 0
}

func writeOwners(b *strings.Builder, os []metav1.OwnerReference) bool {
	for _, o := range os {
		field(b, o.APIVersion)
		field(b, o.Kind)
		field(b, o.Name)
		field(b, string(o.UID))
		field(b, strconv.FormatBool(o.Controller != nil && *o.Controller))
		field(b, strconv.FormatBool(o.Controller != nil))
		field(b, strconv.FormatBool(o.BlockOwnerDeletion != nil && *o.BlockOwnerDeletion))
		field(b, strconv.FormatBool(o.BlockOwnerDeletion != nil))
	}
	return len(os) > 0
}

// writeConditions keys conditions as readConditions leaves them: type,
// status and reason.
func writeConditions(b *strings.Builder, cs []corev1.PodCondition) bool {
	for _, c := range cs {
		if c.Message != "" || !c.LastProbeTime.IsZero() || !c.LastTransitionTime.IsZero() || c.ObservedGeneration != 0 {
			return false
		}
		field(b, string(c.Type))
		field(b, string(c.Status))
		field(b, c.Reason)
	}
	return len(cs) > 0
}

// writeContainers keys containers as StripUnread leaves them: name,
// resources, ports, restart policy and resize policy. Containers with
// restart policy rules or resource claims are not shared.
func writeContainers(b *strings.Builder, cs []corev1.Container) bool {
	for i := range cs {
		c := &cs[i]
		if len(c.RestartPolicyRules) > 0 || len(c.Resources.Claims) > 0 || c.Image != "" || len(c.Command) > 0 {
			return false
		}
		field(b, c.Name)
		field(b, "requests")
		writeList(b, c.Resources.Requests)
		field(b, "limits")
		writeList(b, c.Resources.Limits)
		for _, pt := range c.Ports {
			field(b, pt.Name)
			field(b, strconv.Itoa(int(pt.HostPort)))
			field(b, strconv.Itoa(int(pt.ContainerPort)))
			field(b, string(pt.Protocol))
			field(b, pt.HostIP)
		}
		field(b, "restart")
		if c.RestartPolicy != nil {
			field(b, string(*c.RestartPolicy))
		}
		for _, r := range c.ResizePolicy {
			field(b, string(r.ResourceName))
			field(b, string(r.RestartPolicy))
		}
		field(b, "end")
	}
	return len(cs) > 0
}

// field writes s length-prefixed, so no two sequences of fields write the
// same key.
func field(b *strings.Builder, s string) {
	b.WriteString(strconv.Itoa(len(s)))
	b.WriteByte(':')
	b.WriteString(s)
}
