package whatif

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/vpa/estimator"
	"github.com/kscale/kscale/internal/vpa/model"
	"github.com/kscale/kscale/internal/vpa/recommendation"
	"github.com/kscale/kscale/internal/vpa/updater"
)

const (
	namespace = "whatif"
	container = "main"
)

// recommender is kscale's VPA recommender model for the workload's one
// container: the same histograms, decay and estimator the vpa-recommender
// runs, fed with the simulated usage.
type recommender struct {
	cluster *model.Cluster
	est     *estimator.Estimator
	obj     *vpav1.VerticalPodAutoscaler
	key     model.AggregateKey
	labels  map[string]string
	rec     *vpav1.RecommendedPodResources
}

func newRecommender(name string, policy *vpav1.PodResourcePolicy, mode vpav1.UpdateMode, halfLife time.Duration) *recommender {
	cfg := model.DefaultConfig()
	if halfLife > 0 {
		cfg.CPUHalfLife = halfLife
		cfg.Default()
		if err := cfg.Validate(); err != nil {
			panic(err) // the half-life was validated by Parse
		}
	}
	ecfg := estimator.DefaultConfig()
	labels := map[string]string{"app": name}
	return &recommender{
		cluster: model.NewCluster(cfg),
		est:     estimator.New(ecfg),
		obj: &vpav1.VerticalPodAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			Spec: vpav1.VerticalPodAutoscalerSpec{
				UpdatePolicy:   &vpav1.PodUpdatePolicy{UpdateMode: &mode},
				ResourcePolicy: policy,
			},
		},
		key:    model.AggregateKey{Namespace: namespace, Container: container, Labels: model.LabelsKey(labels)},
		labels: labels,
	}
}

// observe feeds one sample of a running pod.
func (r *recommender) observe(p *pod, now time.Time) {
	id := model.PodID{Namespace: namespace, Name: p.name}
	if r.cluster.Container(id, container) == nil {
		r.cluster.SetPod(id, r.labels, []string{container}, false, now)
	}
	c := r.cluster.Container(id, container)
	c.AddCPU(now, p.cpuUsed)
	c.AddMemory(now, p.memUsed)
}

// forget removes a deleted pod.
func (r *recommender) forget(p *pod) {
	r.cluster.DeletePod(model.PodID{Namespace: namespace, Name: p.name})
}

// recommend recomputes the recommendation, as one recommender loop does.
func (r *recommender) recommend() {
	agg := r.cluster.Aggregate(r.key)
	if agg == nil || !agg.HasSamples() {
		return
	}
	r.rec = r.est.Recommend(r.obj, map[string]*model.AggregateContainerState{container: agg})
}

// process is the admission webhook's and updater's view of one pod: the
// recommendation capped by the policy.
func (r *recommender) process(p *pod) recommendation.Result {
	return recommendation.Process(p.object(), r.rec, r.obj.Spec.ResourcePolicy, recommendation.Limits{})
}

// admit returns the requests a new pod gets from the admission webhook.
func (r *recommender) admit(p *pod) {
	if r.rec == nil {
		return
	}
	if c, ok := r.process(p).Find(container); ok {
		p.setRequests(c.Requests)
	}
}

// updaterDecision is one updater loop's choice for one pod.
type updaterDecision struct {
	pod     *pod
	inPlace bool
	result  recommendation.Result
}

// update runs the updater's decisions over the pods: which are worth
// updating (updater.Assess, ShouldUpdate), in priority order
// (SortByPriority), within the eviction budget (updater.Budget), and for
// InPlaceOrRecreate whether to resize or evict (updater.DecideResize; the
// simulated kubelet applies every resize at once, so no resize is ever
// deferred, infeasible or in progress).
func (r *recommender) update(pods []*pod, configured int, cfg *VPA, now time.Time) []updaterDecision {
	mode := *r.obj.Spec.UpdatePolicy.UpdateMode
	if r.rec == nil || mode == vpav1.UpdateModeInitial || mode == vpav1.UpdateModeOff {
		return nil
	}
	th := updater.DefaultConfig().Thresholds
	live, pending := len(pods), 0
	byObj := map[*corev1.Pod]*pod{}
	var cands []updater.Candidate
	for _, p := range pods {
		if !p.ready(now) {
			pending++
		}
		obj := p.object()
		byObj[obj] = p
		res := recommendation.Process(obj, r.rec, r.obj.Spec.ResourcePolicy, recommendation.Limits{})
		prio := updater.Assess(obj, res, now, th)
		if prio.ShouldUpdate(th) {
			cands = append(cands, updater.Candidate{Pod: obj, Priority: prio, Processed: res})
		}
	}
	if !updater.EnoughReplicas(live, cfg.minReplicas()) {
		return nil
	}
	updater.SortByPriority(cands)
	budget := updater.NewBudget(configured, live, pending, cfg.evictionTolerance())
	var out []updaterDecision
	for _, c := range cands {
		p := byObj[c.Pod]
		notReady := !p.ready(now)
		if !budget.CanEvict(notReady) {
			continue
		}
		d := updaterDecision{pod: p, result: c.Processed}
		if mode == vpav1.UpdateModeInPlaceOrRecreate {
			switch updater.DecideResize(updater.ResizeInput{Mode: mode, Pod: c.Pod, Recommendation: r.rec, Now: now}) {
			case updater.ResizeDefer:
				continue
			case updater.ResizeApply, updater.ResizeRetryInfeasible:
				d.inPlace = true
			}
		}
		budget.Disrupted(notReady)
		out = append(out, d)
	}
	return out
}

func (v *VPA) minReplicas() int {
	if v.MinReplicas != nil {
		return *v.MinReplicas
	}
	return 2
}

func (v *VPA) evictionTolerance() float64 {
	if v.EvictionTolerance != nil {
		return *v.EvictionTolerance
	}
	return 0.5
}

// policy is the VPA's resource policy for the container.
func (v *VPA) policy() *vpav1.PodResourcePolicy {
	return containerPolicy(v.ControlledResources, v.MinAllowed.List(), v.MaxAllowed.List())
}

func containerPolicy(controlled []string, minA, maxA corev1.ResourceList) *vpav1.PodResourcePolicy {
	rv := vpav1.ContainerControlledValuesRequestsOnly
	cp := vpav1.ContainerResourcePolicy{ContainerName: container, ControlledValues: &rv, MinAllowed: minA, MaxAllowed: maxA}
	if len(controlled) > 0 {
		names := make([]corev1.ResourceName, len(controlled))
		for i, c := range controlled {
			names[i] = corev1.ResourceName(c)
		}
		cp.ControlledResources = &names
	}
	return &vpav1.PodResourcePolicy{ContainerPolicies: []vpav1.ContainerResourcePolicy{cp}}
}

// object is the pod as the VPA code sees it.
func (p *pod) object() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: p.name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: container,
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU:    *resource.NewMilliQuantity(int64(p.cpuReq*1000+0.5), resource.DecimalSI),
				corev1.ResourceMemory: *resource.NewQuantity(int64(p.memReq), resource.BinarySI),
			}},
		}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &metav1.Time{Time: p.created}},
	}
}

// setRequests sets the pod's requests from a resource list.
func (p *pod) setRequests(l corev1.ResourceList) {
	if q, ok := l[corev1.ResourceCPU]; ok {
		p.cpuReq = float64(q.MilliValue()) / 1000
	}
	if q, ok := l[corev1.ResourceMemory]; ok {
		p.memReq = q.AsApproximateFloat64()
	}
}
