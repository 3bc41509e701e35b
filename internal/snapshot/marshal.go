package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/scenario"
)

// The out* types mirror the scenario schema in the form it is written:
// quantities and durations as strings, Kubernetes values as plain maps and
// empty fields left out.
type outScenario struct {
	APIVersion             string                           `yaml:"apiVersion"`
	Kind                   string                           `yaml:"kind"`
	Name                   string                           `yaml:"name"`
	Description            string                           `yaml:"description,omitempty"`
	Duration               string                           `yaml:"duration"`
	Autoscaler             map[string]string                `yaml:"autoscaler,omitempty"`
	Priorities             map[int][]string                 `yaml:"priorities,omitempty"`
	NodeGroups             []outGroup                       `yaml:"nodeGroups,omitempty"`
	Nodes                  []outNode                        `yaml:"nodes,omitempty"`
	StorageClasses         []outStorageClass                `yaml:"storageClasses,omitempty"`
	PersistentVolumes      []outVolume                      `yaml:"persistentVolumes,omitempty"`
	PersistentVolumeClaims []scenario.PersistentVolumeClaim `yaml:"persistentVolumeClaims,omitempty"`
	Workloads              []outWorkload                    `yaml:"workloads,omitempty"`
	PodDisruptionBudgets   []outBudget                      `yaml:"podDisruptionBudgets,omitempty"`
}

// outBudget is a podDisruptionBudgets entry; the selector is always
// written (an empty one selects every pod of the namespace).
type outBudget struct {
	Name                       string `yaml:"name"`
	Namespace                  string `yaml:"namespace"`
	Selector                   any    `yaml:"selector"`
	MinAvailable               string `yaml:"minAvailable,omitempty"`
	MaxUnavailable             string `yaml:"maxUnavailable,omitempty"`
	UnhealthyPodEvictionPolicy string `yaml:"unhealthyPodEvictionPolicy,omitempty"`
}

type outStorageClass struct {
	Name              string `yaml:"name"`
	Provisioner       string `yaml:"provisioner"`
	VolumeBindingMode string `yaml:"volumeBindingMode,omitempty"`
	AllowedTopologies any    `yaml:"allowedTopologies,omitempty"`
}

type outVolume struct {
	Name         string                              `yaml:"name"`
	StorageClass string                              `yaml:"storageClass,omitempty"`
	Capacity     string                              `yaml:"capacity"`
	AccessModes  []corev1.PersistentVolumeAccessMode `yaml:"accessModes,omitempty"`
	NodeAffinity any                                 `yaml:"nodeAffinity,omitempty"`
	Labels       map[string]string                   `yaml:"labels,omitempty"`
}

type outGroup struct {
	Name          string            `yaml:"name"`
	Min           int               `yaml:"min"`
	Max           int               `yaml:"max"`
	Target        int               `yaml:"target"`
	InstanceTypes []string          `yaml:"instanceTypes,omitempty"`
	Resources     map[string]string `yaml:"resources,omitempty"`
	Reserved      map[string]string `yaml:"reserved,omitempty"`
	Zone          string            `yaml:"zone,omitempty"`
	Labels        map[string]string `yaml:"labels,omitempty"`
	Taints        any               `yaml:"taints,omitempty"`
	BootTime      string            `yaml:"bootTime,omitempty"`
	Capacity      any               `yaml:"capacity,omitempty"`
	StockoutError *outCloudError    `yaml:"stockoutError,omitempty"`
	RealNodes     any               `yaml:"realNodes,omitempty"`
	// AutoscalingOptions and PricePerHour come from a cloud config only.
	AutoscalingOptions map[string]string `yaml:"autoscalingOptions,omitempty"`
	PricePerHour       float64           `yaml:"pricePerHour,omitempty"`
	Unmanaged          bool              `yaml:"unmanaged,omitempty"`
}

type outCloudError struct {
	Class   string `yaml:"class,omitempty"`
	Code    string `yaml:"code,omitempty"`
	Message string `yaml:"message,omitempty"`
}

type outNode struct {
	Name     string `yaml:"name"`
	Group    string `yaml:"group"`
	NotReady bool   `yaml:"notReady,omitempty"`
	Taints   any    `yaml:"taints,omitempty"`
}

type outWorkload struct {
	Name      string         `yaml:"name"`
	Namespace string         `yaml:"namespace"`
	Kind      string         `yaml:"kind"`
	Replicas  int            `yaml:"replicas,omitempty"`
	Scheduled int            `yaml:"scheduled,omitempty"`
	On        map[string]int `yaml:"on,omitempty"`
	NotReady  int            `yaml:"notReady,omitempty"`
	Desired   *int           `yaml:"desired,omitempty"`
	// Terminating is the time left, as a duration string.
	Terminating          string                    `yaml:"terminating,omitempty"`
	Controller           *outController            `yaml:"controller,omitempty"`
	VolumeClaimTemplates []scenario.ClaimTemplate  `yaml:"volumeClaimTemplates,omitempty"`
	Pod                  outPod                    `yaml:"pod"`
	PodLabels            map[int]map[string]string `yaml:"podLabels,omitempty"`
	PDB                  *outPDB                   `yaml:"pdb,omitempty"`
}

type outController struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Missing    bool   `yaml:"missing,omitempty"`
}

type outPod struct {
	Requests                  map[string]string `yaml:"requests,omitempty"`
	Limits                    map[string]string `yaml:"limits,omitempty"`
	Labels                    map[string]string `yaml:"labels,omitempty"`
	Annotations               map[string]string `yaml:"annotations,omitempty"`
	NodeSelector              map[string]string `yaml:"nodeSelector,omitempty"`
	Affinity                  any               `yaml:"affinity,omitempty"`
	Tolerations               any               `yaml:"tolerations,omitempty"`
	TopologySpreadConstraints any               `yaml:"topologySpreadConstraints,omitempty"`
	Priority                  int32             `yaml:"priority,omitempty"`
	Volumes                   []scenario.Volume `yaml:"volumes,omitempty"`
}

type outPDB struct {
	MinAvailable   string `yaml:"minAvailable,omitempty"`
	MaxUnavailable string `yaml:"maxUnavailable,omitempty"`
}

// Marshal writes the result as a scenario file: the header and the notes
// as a comment, then the scenario. Workload events, expectations and the
// autoscaler section is written as set (a snapshot has none unless its
// caller sets one).
func Marshal(r *Result) ([]byte, error) {
	s := r.Scenario
	out := outScenario{APIVersion: s.APIVersion, Kind: s.Kind, Name: s.Name, Description: s.Description,
		Duration: s.Duration.String(), Priorities: s.Priorities, Autoscaler: s.Autoscaler.Values}
	for _, g := range s.NodeGroups {
		og, err := outGroupOf(g)
		if err != nil {
			return nil, err
		}
		out.NodeGroups = append(out.NodeGroups, og)
	}
	for _, n := range s.Nodes {
		taints, err := plain(n.Taints.Value, len(n.Taints.Value) == 0)
		if err != nil {
			return nil, fmt.Errorf("writing node %s: %w", n.Name, err)
		}
		out.Nodes = append(out.Nodes, outNode{Name: n.Name, Group: n.Group, NotReady: n.NotReady, Taints: taints})
	}
	if err := outStorage(s, &out); err != nil {
		return nil, err
	}
	for _, w := range s.Workloads {
		ow, err := outWorkloadOf(w)
		if err != nil {
			return nil, err
		}
		out.Workloads = append(out.Workloads, ow)
	}
	for _, b := range s.PodDisruptionBudgets {
		ob := outBudget{Name: b.Name, Namespace: b.Namespace, MinAvailable: b.MinAvailable, MaxUnavailable: b.MaxUnavailable,
			UnhealthyPodEvictionPolicy: b.UnhealthyPodEvictionPolicy, Selector: map[string]any{}}
		if b.Selector != nil {
			sel, err := plain(b.Selector.Value, false)
			if err != nil {
				return nil, fmt.Errorf("writing PodDisruptionBudget %s/%s: %w", b.Namespace, b.Name, err)
			}
			ob.Selector = sel
		}
		out.PodDisruptionBudgets = append(out.PodDisruptionBudgets, ob)
	}
	var doc yaml.Node
	if err := doc.Encode(out); err != nil {
		return nil, fmt.Errorf("writing the scenario: %w", err)
	}
	doc.HeadComment = comment(r)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("writing the scenario: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("writing the scenario: %w", err)
	}
	return buf.Bytes(), nil
}

// comment is the header: one line per header entry, then the notes as a
// list.
func comment(r *Result) string {
	lines := append([]string(nil), r.Header...)
	if len(r.Notes) > 0 {
		lines = append(lines, "", "Not captured or approximated (the scenario schema cannot express it):")
		for _, n := range r.Notes {
			lines = append(lines, "- "+n)
		}
	}
	for i, l := range lines {
		lines[i] = strings.ReplaceAll(l, "\n", " ")
	}
	return strings.Join(lines, "\n")
}

func outGroupOf(g scenario.NodeGroup) (outGroup, error) {
	og := outGroup{Name: g.Name, Min: g.Min, Max: g.Max, Target: g.Target, InstanceTypes: g.InstanceTypes,
		Resources: quantities(g.Resources), Reserved: quantities(g.Reserved), Zone: g.Zone, Labels: g.Labels}
	var err error
	if og.Taints, err = plain(g.Taints.Value, len(g.Taints.Value) == 0); err != nil {
		return og, fmt.Errorf("writing group %s: %w", g.Name, err)
	}
	if g.BootTime != nil {
		og.BootTime = g.BootTime.String()
	}
	if g.Capacity != nil {
		og.Capacity = g.Capacity.Limit
		if g.Capacity.Limit < 0 {
			og.Capacity = "unlimited"
		}
	}
	if e := g.StockoutError; e != nil {
		og.StockoutError = &outCloudError{Class: e.Class, Code: e.Code, Message: e.Message}
	}
	og.AutoscalingOptions, og.PricePerHour, og.Unmanaged = g.AutoscalingOptions, g.PricePerHour, g.Unmanaged
	if r := g.RealNodes; r != nil {
		taints, err := plain(r.Taints.Value, len(r.Taints.Value) == 0)
		if err != nil {
			return og, fmt.Errorf("writing group %s: %w", g.Name, err)
		}
		og.RealNodes = map[string]any{"taints": taints, "labels": r.Labels, "removeLabels": r.RemoveLabels}
	}
	return og, nil
}

func outWorkloadOf(w scenario.Workload) (outWorkload, error) {
	p := w.Pod
	ow := outWorkload{Name: w.Name, Namespace: w.Namespace, Kind: w.Kind, Replicas: w.Replicas, Scheduled: w.Scheduled, On: w.On, NotReady: w.NotReady, Desired: w.Desired,
		VolumeClaimTemplates: w.VolumeClaimTemplates, PodLabels: w.PodLabels,
		Pod: outPod{Requests: quantities(p.Requests), Limits: quantities(p.Limits), Labels: p.Labels, Annotations: p.Annotations,
			NodeSelector: p.NodeSelector, Priority: p.Priority, Volumes: p.Volumes}}
	if c := w.Controller; c != nil {
		ow.Controller = &outController{APIVersion: c.APIVersion, Kind: c.Kind, Missing: c.Missing}
	}
	if w.Terminating != nil {
		ow.Terminating = w.Terminating.String()
	}
	if w.PDB != nil {
		ow.PDB = &outPDB{MinAvailable: w.PDB.MinAvailable, MaxUnavailable: w.PDB.MaxUnavailable}
	}
	var err error
	if p.Affinity != nil {
		ow.Pod.Affinity, err = plain(p.Affinity.Value, false)
	}
	if err == nil {
		ow.Pod.Tolerations, err = plain(p.Tolerations.Value, len(p.Tolerations.Value) == 0)
	}
	if err == nil {
		ow.Pod.TopologySpreadConstraints, err = plain(p.TopologySpreadConstraints.Value, len(p.TopologySpreadConstraints.Value) == 0)
	}
	if err != nil {
		return ow, fmt.Errorf("writing workload %s: %w", w.Name, err)
	}
	return ow, nil
}

// outStorage writes the storage classes, volumes and claims.
func outStorage(s *scenario.Scenario, out *outScenario) error {
	for _, sc := range s.StorageClasses {
		topo, err := plain(sc.AllowedTopologies.Value, len(sc.AllowedTopologies.Value) == 0)
		if err != nil {
			return fmt.Errorf("writing storage class %s: %w", sc.Name, err)
		}
		out.StorageClasses = append(out.StorageClasses, outStorageClass{Name: sc.Name, Provisioner: sc.Provisioner,
			VolumeBindingMode: sc.VolumeBindingMode, AllowedTopologies: topo})
	}
	for _, pv := range s.PersistentVolumes {
		ov := outVolume{Name: pv.Name, StorageClass: pv.StorageClass, Capacity: pv.Capacity.String(), AccessModes: pv.AccessModes, Labels: pv.Labels}
		if pv.NodeAffinity != nil {
			var err error
			if ov.NodeAffinity, err = plain(pv.NodeAffinity.Value, false); err != nil {
				return fmt.Errorf("writing persistent volume %s: %w", pv.Name, err)
			}
		}
		out.PersistentVolumes = append(out.PersistentVolumes, ov)
	}
	out.PersistentVolumeClaims = s.PersistentVolumeClaims
	return nil
}

func quantities(r scenario.Resources) map[string]string {
	if len(r) == 0 {
		return nil
	}
	out := make(map[string]string, len(r))
	for k, q := range r {
		out[string(k)] = q.String()
	}
	return out
}

// plain turns a Kubernetes value into maps and lists with its JSON field
// names, the form the scenario parser decodes; nil when empty.
func plain(v any, empty bool) (any, error) {
	if empty {
		return nil, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}
