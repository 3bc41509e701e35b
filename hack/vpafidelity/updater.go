package vpafidelity

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/updater/priority"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/utils/limitrange"
	vpautil "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/utils/vpa"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kscale/kscale/internal/vpa/recommendation"
	"github.com/kscale/kscale/internal/vpa/updater"
)

// PodCase is one input of the updater comparison: a VPA with its
// recommendation and policy, one pod, the namespace's LimitRange and the
// updater's thresholds.
type PodCase struct {
	Seed       int64
	VPA        *vpav1.VerticalPodAutoscaler
	Pod        *corev1.Pod
	LimitRange *corev1.LimitRange
	Thresholds updater.Thresholds
	Now        time.Time
}

// String prints the case as a reproducer.
func (c *PodCase) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d thresholds %+v now %s start %v annotations %v\n", c.Seed, c.Thresholds,
		c.Now.Format(time.RFC3339), c.Pod.Status.StartTime, c.Pod.Annotations)
	for _, ct := range c.Pod.Spec.Containers {
		fmt.Fprintf(&b, "  container %s requests %s limits %s\n", ct.Name, listString(ct.Resources.Requests), listString(ct.Resources.Limits))
	}
	for _, p := range c.VPA.Spec.ResourcePolicy.ContainerPolicies {
		fmt.Fprintf(&b, "  policy %s mode %v min %s max %s controlledValues %v controlledResources %v\n", p.ContainerName,
			deref(p.Mode), listString(p.MinAllowed), listString(p.MaxAllowed), deref(p.ControlledValues), deref(p.ControlledResources))
	}
	for _, r := range c.VPA.Status.Recommendation.ContainerRecommendations {
		fmt.Fprintf(&b, "  recommendation %s target %s lower %s upper %s\n", r.ContainerName, listString(r.Target),
			listString(r.LowerBound), listString(r.UpperBound))
	}
	for _, l := range c.LimitRange.Spec.Limits {
		fmt.Fprintf(&b, "  limitrange %s min %s max %s default %s\n", l.Type, listString(l.Min), listString(l.Max), listString(l.Default))
	}
	return b.String()
}

func deref[T any](p *T) any {
	if p == nil {
		return "-"
	}
	return *p
}

// listString prints a resource list as cpu=… memory=….
func listString(l corev1.ResourceList) string {
	var parts []string
	for _, k := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if q, ok := l[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%s", k, q.String()))
		}
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// GeneratePodCase returns the random updater case of seed: 1-3 containers
// with random requests and limits (some missing), a recommendation with
// random bounds (some containers without one), a policy with random
// minAllowed, maxAllowed, controlledValues, controlledResources and mode,
// a LimitRange with container and pod items, the observed-containers
// annotation, and a start time around the lifetime threshold. Pods carry
// no actual resources in status and no OOM history (not generated yet).
func GeneratePodCase(seed int64) *PodCase {
	r := rand.New(rand.NewPCG(uint64(seed), 0x51ed270b27f2f3c1))
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := &PodCase{Seed: seed, Now: now, Thresholds: updater.Thresholds{
		EvictAfterOOM: 10 * time.Minute,
		PodUpdate:     []float64{0, 0.1, 0.5}[r.IntN(3)],
		Lifetime:      []time.Duration{0, 12 * time.Hour}[r.IntN(2)],
	}}
	n := 1 + r.IntN(3)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "p", Annotations: map[string]string{}}}
	vpa := vpaObject()
	vpa.Spec.ResourcePolicy = &vpav1.PodResourcePolicy{}
	vpa.Status.Recommendation = &vpav1.RecommendedPodResources{}
	var observed []string
	for i := range n {
		name := ContainerName(i)
		req, lim := randList(r, 3), randList(r, 3)
		for res, l := range lim {
			if q, ok := req[res]; ok && q.Cmp(l) > 0 {
				lim[res] = scaled(q, 1+r.IntN(3))
			}
		}
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: name,
			Resources: corev1.ResourceRequirements{Requests: req, Limits: lim}})
		if r.IntN(5) > 0 {
			observed = append(observed, name)
		}
		if r.IntN(2) == 0 {
			vpa.Spec.ResourcePolicy.ContainerPolicies = append(vpa.Spec.ResourcePolicy.ContainerPolicies, randPolicy(r, name))
		}
	}
	for i := range n {
		name := ContainerName(i)
		if cp := vpautil.GetContainerResourcePolicy(name, vpa.Spec.ResourcePolicy); r.IntN(6) > 0 && (cp == nil || cp.Mode == nil || *cp.Mode != vpav1.ContainerScalingModeOff) {
			// As the recommender writes it: only controlled resources.
			lo, t, hi := randList(r, 0), corev1.ResourceList{}, corev1.ResourceList{}
			if cp != nil && cp.ControlledResources != nil {
				for res := range lo {
					if !slices.Contains(*cp.ControlledResources, res) {
						delete(lo, res)
					}
				}
			}
			for res, q := range lo {
				t[res] = scaled(q, 1+r.IntN(3))
				hi[res] = scaled(q, 1+r.IntN(6))
			}
			vpa.Status.Recommendation.ContainerRecommendations = append(vpa.Status.Recommendation.ContainerRecommendations,
				vpav1.RecommendedContainerResources{ContainerName: name, Target: t, LowerBound: lo, UpperBound: hi, UncappedTarget: t})
		}
	}
	if r.IntN(3) > 0 {
		pod.Annotations[updater.ObservedContainersAnnotation] = strings.Join(observed, ", ")
	}
	if r.IntN(6) > 0 {
		start := metav1.NewTime(now.Add(-time.Duration(r.Int64N(int64(24 * time.Hour)))))
		pod.Status.StartTime = &start
	}
	c.VPA, c.Pod = vpa, pod
	c.LimitRange = &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "lr"}}
	for _, typ := range []corev1.LimitType{corev1.LimitTypeContainer, corev1.LimitTypePod} {
		if r.IntN(3) == 0 {
			c.LimitRange.Spec.Limits = append(c.LimitRange.Spec.Limits, randLimitRangeItem(r, typ))
		}
	}
	return c
}

// randLimitRangeItem returns a LimitRange item the API server accepts and
// stores: per resource min <= defaultRequest <= default <= max (each may
// be left out), defaults only for containers, then the API server's
// defaulting (SetDefaults_LimitRangeItem): a container item's default limit
// is its max where unset, and its default request its default limit, else
// its min.
func randLimitRangeItem(r *rand.Rand, typ corev1.LimitType) corev1.LimitRangeItem {
	item := corev1.LimitRangeItem{Type: typ, Min: corev1.ResourceList{}, Max: corev1.ResourceList{}}
	if typ == corev1.LimitTypeContainer {
		item.Default, item.DefaultRequest = corev1.ResourceList{}, corev1.ResourceList{}
	}
	for res, q := range randList(r, 0) {
		f := 1 + r.IntN(20)
		if r.IntN(4) > 0 {
			item.Min[res] = q
		}
		if r.IntN(4) > 0 {
			item.Max[res] = scaled(q, f)
		}
		if typ == corev1.LimitTypeContainer && r.IntN(2) == 0 {
			item.Default[res] = scaled(q, 1+r.IntN(f))
		}
	}
	if typ != corev1.LimitTypeContainer {
		return item
	}
	for res, q := range item.Max {
		if _, ok := item.Default[res]; !ok {
			item.Default[res] = q.DeepCopy()
		}
	}
	for res, q := range item.Default {
		if _, ok := item.DefaultRequest[res]; !ok {
			item.DefaultRequest[res] = q.DeepCopy()
		}
	}
	for res, q := range item.Min {
		if _, ok := item.DefaultRequest[res]; !ok {
			item.DefaultRequest[res] = q.DeepCopy()
		}
	}
	return item
}

// randList returns CPU and memory quantities, each left out with
// probability 1/skip (never when skip is 0).
func randList(r *rand.Rand, skip int) corev1.ResourceList {
	l := corev1.ResourceList{}
	if skip == 0 || r.IntN(skip) > 0 {
		l[corev1.ResourceCPU] = *resource.NewMilliQuantity([]int64{1, 10, 100, 250, 1000, 3500}[r.IntN(6)]+r.Int64N(50), resource.DecimalSI)
	}
	if skip == 0 || r.IntN(skip) > 0 {
		l[corev1.ResourceMemory] = *resource.NewQuantity(([]int64{1, 64, 256, 1024, 8192}[r.IntN(5)]+r.Int64N(100))<<20, resource.BinarySI)
	}
	return l
}

func scaled(q resource.Quantity, f int) resource.Quantity {
	out := q.DeepCopy()
	out.Mul(int64(f))
	return out
}

func scaledList(l corev1.ResourceList, f int) corev1.ResourceList {
	for k, q := range l {
		l[k] = scaled(q, f)
	}
	return l
}

// randPolicy returns a random container policy for name (or "*").
func randPolicy(r *rand.Rand, name string) vpav1.ContainerResourcePolicy {
	if r.IntN(4) == 0 {
		name = vpav1.DefaultContainerResourcePolicy
	}
	p := vpav1.ContainerResourcePolicy{ContainerName: name}
	if r.IntN(2) == 0 {
		p.MinAllowed = randList(r, 2)
	}
	if r.IntN(2) == 0 {
		p.MaxAllowed = scaledList(randList(r, 2), 4)
	}
	if r.IntN(3) == 0 {
		v := []vpav1.ContainerControlledValues{vpav1.ContainerControlledValuesRequestsOnly, vpav1.ContainerControlledValuesRequestsAndLimits}[r.IntN(2)]
		p.ControlledValues = &v
	}
	if r.IntN(4) == 0 {
		p.ControlledResources = &[]corev1.ResourceName{[]corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}[r.IntN(2)]}
	}
	if r.IntN(6) == 0 {
		m := vpav1.ContainerScalingModeOff
		p.Mode = &m
	}
	return p
}

// CompareUpdater compares the processed recommendation per container, the
// update priority (scale-up, outside the range, resource diff) and whether
// the pod is accepted for update.
func CompareUpdater(c *PodCase) []Diff {
	var out []Diff
	add := func(kind, container, format string, a ...any) {
		out = append(out, Diff{Kind: kind, Container: container, Detail: fmt.Sprintf(format, a...)})
	}
	calc, err := limitRangeCalculator(c.LimitRange)
	if err != nil {
		panic(err.Error())
	}
	proc := vpautil.NewCappingRecommendationProcessor(calc)
	upRec, upErr := applyUpstream(proc, c)
	ks := recommendation.Process(c.Pod, c.VPA.Status.Recommendation, c.VPA.Spec.ResourcePolicy,
		recommendation.MergeLimitRanges([]corev1.LimitRange{*c.LimitRange}))
	if errors.Is(upErr, errUpstreamPanic) {
		add(upstreamPanics, "", "%v", upErr)
		return out
	}
	if upErr != nil {
		add("updater-processed", "", "upstream error %v", upErr)
		return out
	}
	for _, ct := range c.Pod.Spec.Containers {
		u := vpautil.GetRecommendationForContainer(ct.Name, upRec)
		k, kok := ks.Find(ct.Name)
		if u == nil {
			continue // kscale leaves switched-off containers out; upstream's priority skips them too
		}
		if !kok {
			add("updater-processed", ct.Name, "upstream %s, kscale none", listString(u.Target))
			continue
		}
		for _, l := range []struct {
			what string
			u, k corev1.ResourceList
		}{{"target", u.Target, k.Target}, {"lowerBound", u.LowerBound, k.LowerBound}, {"upperBound", u.UpperBound, k.UpperBound}} {
			if !sameList(l.u, l.k) {
				add("updater-processed", ct.Name, "%s: upstream %s, kscale %s", l.what, listString(l.u), listString(l.k))
			}
		}
	}
	up := priority.NewProcessor().GetUpdatePriority(c.Pod, c.VPA, upRec)
	kp := updater.Assess(c.Pod, ks, c.Now, c.Thresholds)
	if up.ScaleUp != kp.ScaleUp || up.OutsideRecommendedRange != kp.OutsideRange || !near(up.ResourceDiff, kp.ResourceDiff) {
		add("updater-priority", "", "upstream %+v, kscale scaleUp %v outside %v diff %v", up, kp.ScaleUp, kp.OutsideRange, kp.ResourceDiff)
	}
	upCalc := priority.NewUpdatePriorityCalculator(c.VPA, priority.UpdateConfig{MinChangePriority: c.Thresholds.PodUpdate,
		PodLifetimeUpdateThreshold: c.Thresholds.Lifetime, EvictAfterOOMThreshold: c.Thresholds.EvictAfterOOM}, proc, priority.NewProcessor())
	upCalc.AddPod(c.Pod, c.Now, nil)
	upAccepted := slices.Contains(upCalc.GetSortedPods(priority.NewDefaultPodEvictionAdmission()), c.Pod)
	if kAccepted := kp.ShouldUpdate(c.Thresholds); upAccepted != kAccepted {
		add("updater-decision", "", "upstream updates %v, kscale %v", upAccepted, kAccepted)
	}
	return out
}

// limitRangeCalculator returns upstream's LimitRange calculator over a
// lister holding lr.
func limitRangeCalculator(lr *corev1.LimitRange) (limitrange.LimitRangeCalculator, error) {
	f := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	if err := f.Core().V1().LimitRanges().Informer().GetIndexer().Add(lr); err != nil {
		return nil, fmt.Errorf("adding the LimitRange: %w", err)
	}
	calc, err := limitrange.NewLimitsRangeCalculator(f)
	if err != nil {
		return nil, fmt.Errorf("building the LimitRange calculator: %w", err)
	}
	return calc, nil
}

// applyUpstream runs upstream's recommendation processor, turning its
// panics into errors.
func applyUpstream(proc vpautil.RecommendationProcessor, c *PodCase) (rec *vpav1.RecommendedPodResources, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", errUpstreamPanic, p)
		}
	}()
	rec, _, err = proc.Apply(c.VPA, c.Pod)
	return rec, err
}

// errUpstreamPanic marks a case upstream's code panics on.
var errUpstreamPanic = errors.New("upstream panicked")

// upstreamPanics is the documented deliberate difference (docs/vpa.md)
// of a case upstream's code panics on: upstream's pod LimitRange step
// assigns into the nil bounds of the recommendation it makes up for a
// container without one, which crashes its updater and fails its webhook
// call (the pod is then admitted unchanged); kscale processes the pod.
const upstreamPanics = Deliberate + "upstream-panics"

// sameList reports whether two resource lists hold equal quantities.
func sameList(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, q := range a {
		if o, ok := b[k]; !ok || q.Cmp(o) != 0 {
			return false
		}
	}
	return true
}
