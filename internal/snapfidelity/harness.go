package snapfidelity

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/cloudprovider/kwok"
	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/dryrun"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
	"github.com/kscale/kscale/internal/offline"
	"github.com/kscale/kscale/internal/scenario"
	"github.com/kscale/kscale/internal/snapshot"
	"github.com/kscale/kscale/internal/testenv"
)

// Harness runs generated clusters on one real control plane, one after
// the other: kube-apiserver, etcd, kube-scheduler (it places the pending
// pods it can, preempting lower priorities) and kube-controller-manager's
// disruption controller (PDB status) and ReplicaSet controller (it
// replaces preemption victims). The harness plays the kubelets
// (bound pods run and are Ready) and the node lifecycle controller (a
// Ready node loses the not-ready taint).
type Harness struct {
	// Client is a cluster-admin client.
	Client kubernetes.Interface
	// Source names the cluster in the snapshot's header.
	Source string
	// Clock stamps what the harness's kubelets write (pod start and
	// condition times, a node's heartbeat); nil is the wall clock.
	Clock clock.PassiveClock
	// AfterLiveLoop, when set, runs between the live loop and the
	// snapshot: a test changes the cluster there as a late component
	// would.
	AfterLiveLoop func(context.Context) error
	// Moved counts the comparisons made again because the cluster changed
	// between the live loop and the snapshot.
	Moved int
	// provisions is set while a cluster with unbound late-binding claims
	// is built: the harness then plays their provisioner.
	provisions bool
}

// now is the time of the harness's kubelets.
func (h *Harness) now() time.Time {
	if h.Clock == nil {
		return time.Now()
	}
	return h.Clock.Now()
}

// Environment is the control plane a Harness needs.
var Environment = testenv.Options{Scheduler: true, ControllerManager: true,
	Controllers: []string{"disruption-controller", "replicaset-controller"}}

// Outcome is one cluster's comparison.
type Outcome struct {
	// Live and Simulated are the two loops' decisions.
	Live, Simulated Decisions
	// Notes are what the snapshot listed as not captured.
	Notes []string
	// Scenario is the snapshot as written.
	Scenario []byte
}

// Diff lists the differences between the live and the simulated loop.
func (o *Outcome) Diff() []string { return Diff(o.Live, o.Simulated) }

// Prepare creates the namespaces, priority classes and storage classes
// every cluster uses.
func (h *Harness) Prepare(ctx context.Context) error {
	for _, ns := range Namespaces {
		_, err := h.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating namespace %s: %w", ns, err)
		}
	}
	for _, sc := range StorageClasses() {
		if _, err := h.Client.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating storage class %s: %w", sc.Name, err)
		}
	}
	for name, v := range PriorityValues {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: v}
		if _, err := h.Client.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating priority class %s: %w", name, err)
		}
	}
	return nil
}

// Run builds c in the cluster, runs one dry-run loop on it, snapshots it,
// simulates the snapshot for one loop, and removes c again. The cluster
// must not move between the live loop and the snapshot: when an object
// changed meanwhile (kube-scheduler binding a pod it had first found no
// room for, say), the cluster is settled and compared again, up to
// maxCompareAttempts times.
func (h *Harness) Run(ctx context.Context, c *Cluster) (out *Outcome, err error) {
	defer func() { err = errors.Join(err, h.clean(context.WithoutCancel(ctx), c)) }()
	provider, err := h.build(ctx, c)
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		out, moved, err := h.compare(ctx, c, provider)
		if err != nil || len(moved) == 0 {
			return out, err
		}
		if attempt == maxCompareAttempts {
			return nil, fmt.Errorf("cluster %d kept changing while it was compared, last %v", c.Seed, moved)
		}
		h.Moved++
		ready, err := h.settle(ctx)
		if err != nil {
			return nil, err
		}
		if err := h.waitBudgets(ctx, ready); err != nil {
			return nil, err
		}
	}
}

// compare runs the live loop and simulates the snapshot; moved lists the
// objects that changed from before the live loop to after the snapshot.
func (h *Harness) compare(ctx context.Context, c *Cluster, provider *kwok.Provider) (out *Outcome, moved []string, err error) {
	before, err := h.readWorld(ctx)
	if err != nil {
		return nil, nil, err
	}
	liveDecisions, err := h.liveLoop(ctx, c, provider)
	if err != nil {
		return nil, nil, err
	}
	if h.AfterLiveLoop != nil {
		if err := h.AfterLiveLoop(ctx); err != nil {
			return nil, nil, err
		}
	}
	out, err = h.simulate(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	after, err := h.readWorld(ctx)
	if err != nil {
		return nil, nil, err
	}
	out.Live = liveDecisions
	return out, before.changes(after), nil
}

// build starts the kwok cloud with c's nodes and creates the workloads'
// objects; the scheduler then places the pending pods it can.
func (h *Harness) build(ctx context.Context, c *Cluster) (*kwok.Provider, error) {
	p, err := kwok.New(kwok.Config{Client: h.Client, NodeGroups: c.Groups})
	if err != nil {
		return nil, err
	}
	for _, n := range c.Nodes {
		if n.Group == "" {
			if err := h.createOtherNode(ctx, n); err != nil {
				return nil, err
			}
			continue
		}
		if err := p.AddInstance(n.Group, n.Name, true, 0); err != nil {
			return nil, fmt.Errorf("adding instance %s: %w", n.Name, err)
		}
	}
	if err := p.Start(ctx); err != nil {
		return nil, err
	}
	if err := p.Sync(ctx); err != nil {
		return nil, err
	}
	if err := h.liftNotReadyTaints(ctx); err != nil {
		return nil, err
	}
	if err := h.failKubelets(ctx, c); err != nil {
		return nil, err
	}
	o := ObjectsOf(c)
	h.provisions = lateClaims(o)
	if err := h.create(ctx, o); err != nil {
		return nil, err
	}
	ready, err := h.settle(ctx)
	if err != nil {
		return nil, err
	}
	return p, h.waitBudgets(ctx, ready)
}

func (h *Harness) create(ctx context.Context, o Objects) error {
	uids := map[string]types.UID{}
	for _, rs := range o.ReplicaSets {
		got, err := h.Client.AppsV1().ReplicaSets(rs.Namespace).Create(ctx, rs, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating ReplicaSet %s/%s: %w", rs.Namespace, rs.Name, err)
		}
		uids[rs.Namespace+"/"+rs.Name] = got.UID
	}
	for _, ss := range o.StatefulSets {
		got, err := h.Client.AppsV1().StatefulSets(ss.Namespace).Create(ctx, ss, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating StatefulSet %s/%s: %w", ss.Namespace, ss.Name, err)
		}
		uids[ss.Namespace+"/"+ss.Name] = got.UID
	}
	for _, rc := range o.RCs {
		got, err := h.Client.CoreV1().ReplicationControllers(rc.Namespace).Create(ctx, rc, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating ReplicationController %s/%s: %w", rc.Namespace, rc.Name, err)
		}
		uids[rc.Namespace+"/"+rc.Name] = got.UID
	}
	for _, ds := range o.DaemonSets {
		got, err := h.Client.AppsV1().DaemonSets(ds.Namespace).Create(ctx, ds, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating DaemonSet %s/%s: %w", ds.Namespace, ds.Name, err)
		}
		uids[ds.Namespace+"/"+ds.Name] = got.UID
	}
	for _, j := range o.Jobs {
		got, err := h.Client.BatchV1().Jobs(j.Namespace).Create(ctx, j, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating Job %s/%s: %w", j.Namespace, j.Name, err)
		}
		uids[j.Namespace+"/"+j.Name] = got.UID
	}
	if err := h.createStorage(ctx, o.PVCs, o.PVs, nil); err != nil {
		return err
	}
	pods := map[string]types.UID{}
	for _, p := range o.Pods {
		for i := range p.OwnerReferences {
			if uid, ok := uids[p.Namespace+"/"+p.OwnerReferences[i].Name]; ok {
				p.OwnerReferences[i].UID = uid
			}
		}
		got, err := h.Client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		pods[p.Namespace+"/"+p.Name] = got.UID
	}
	if err := h.createStorage(ctx, o.EphemeralPVCs, o.EphemeralPVs, pods); err != nil {
		return err
	}
	if err := h.liftClaimGates(ctx, o.Pods); err != nil {
		return err
	}
	for _, pdb := range o.PDBs {
		if _, err := h.Client.PolicyV1().PodDisruptionBudgets(pdb.Namespace).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating PDB %s/%s: %w", pdb.Namespace, pdb.Name, err)
		}
	}
	return nil
}

// liveLoop runs one loop of the node autoscaler in dry-run mode on the
// cluster, as `kscale node-autoscaler --dry-run` wires it.
func (h *Harness) liveLoop(ctx context.Context, c *Cluster, p *kwok.Provider) (Decisions, error) {
	opts := options.Default()
	if err := opts.Set(c.Settings); err != nil {
		return Decisions{}, err
	}
	factory := live.NewFactory(h.Client)
	cluster, err := live.NewCluster(factory)
	if err != nil {
		return Decisions{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	factory.Start(ctx.Done())
	defer func() {
		cancel() // the informers stop, then Shutdown waits for them
		factory.Shutdown()
	}()
	if err := cluster.WaitForSync(ctx); err != nil {
		return Decisions{}, err
	}
	m, err := dryrun.NewMetrics(nil)
	if err != nil {
		return Decisions{}, err
	}
	rec := &Recorder{}
	a, err := nodeautoscaler.New(nodeautoscaler.Config{Options: opts, Provider: dryrun.NewProvider(p, m), Cluster: cluster, Recorder: rec,
		Clock: clock.RealClock{}, Rand: rand.New(rand.NewPCG(1, 42)), Registerer: prometheus.NewRegistry(),
		ScaleDown: dryrun.NewCluster(actuation.NewKube(h.Client), m)})
	if err != nil {
		return Decisions{}, err
	}
	if err := a.RunOnce(ctx, time.Now()); err != nil {
		return Decisions{}, fmt.Errorf("running the live loop: %w", err)
	}
	return rec.Decisions(a.ScaleDownCandidates()), nil
}

// simulate snapshots the cluster as `kscale snapshot --cloud-config`
// does, with the loop's flags as the scenario's autoscaler section, and
// runs `kscale simulate`'s world on it for one loop.
func (h *Harness) simulate(ctx context.Context, c *Cluster) (*Outcome, error) {
	cl, err := snapshot.Read(ctx, h.Client, snapshot.ReadOptions{Namespace: metav1.NamespaceSystem, ConfigMapName: "cluster-autoscaler-priority-expander"})
	if err != nil {
		return nil, err
	}
	cl.Source = h.Source
	res, err := snapshot.Convert(cl, snapshot.Options{Now: time.Now(), Duration: time.Second, NodeGroups: c.Groups,
		MinSize: snapshot.SizeFromCluster, MaxSize: snapshot.SizeFromCluster})
	if err != nil {
		return nil, err
	}
	res.Scenario.Autoscaler = scenario.Settings{Values: c.Settings}
	if err := snapshot.Fit(res); err != nil {
		return nil, err
	}
	data, err := snapshot.Marshal(res)
	if err != nil {
		return nil, err
	}
	scn, err := scenario.Parse(data)
	if err != nil {
		return nil, err
	}
	w, err := offline.New(scn)
	if err != nil {
		return nil, err
	}
	r, err := w.Run(ctx)
	if err != nil {
		return nil, err
	}
	return &Outcome{Simulated: SimulatedDecisions(r), Notes: res.Notes, Scenario: data}, nil
}
