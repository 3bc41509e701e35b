package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/cloudprovider/kwok"
)

// nodeFormat builds the nodes of one autoscaler's kwok provider.
type nodeFormat interface {
	// node is the i-th existing node of group, Ready.
	node(group string, i int, now time.Time) (*corev1.Node, error)
}

// kscaleFormat builds nodes exactly as kscale's kwok provider mirrors its
// machines (kwok.MachineNode), so Provider.Start adopts them as members.
type kscaleFormat struct {
	groups map[string]cloudprovider.NodeGroup
}

// newKscaleFormat parses the cloud config the autoscaler will read and
// keeps each group's template.
func newKscaleFormat(client kubernetes.Interface, cloudConfig string) (*kscaleFormat, error) {
	cc, err := kwok.ParseCloudConfig([]byte(cloudConfig))
	if err != nil {
		return nil, err
	}
	p, err := kwok.New(kwok.Config{Client: client, NodeGroups: cc.NodeGroups})
	if err != nil {
		return nil, err
	}
	f := &kscaleFormat{groups: map[string]cloudprovider.NodeGroup{}}
	for _, g := range cc.NodeGroups {
		gc, _, err := p.Group(g.Name)
		if err != nil {
			return nil, fmt.Errorf("reading node group %q: %w", g.Name, err)
		}
		f.groups[g.Name] = cloudprovider.NodeGroup{ID: g.Name, MinSize: g.Min, MaxSize: g.Max, Template: gc.Template}
	}
	return f, nil
}

func (f *kscaleFormat) node(group string, i int, now time.Time) (*corev1.Node, error) {
	g, ok := f.groups[group]
	if !ok || len(g.Template.InstanceTypes) == 0 {
		return nil, fmt.Errorf("node group %q: not in the cloud config", group)
	}
	id := fmt.Sprintf("lb-%s-%d", group, i)
	m := inmemory.Machine{Group: group, ID: id, ProviderID: kwok.ProviderIDPrefix + group + "/" + id,
		InstanceType: g.Template.InstanceTypes[0], Zone: zone, ReadyAt: now, Running: true}
	return kwok.MachineNode(m, g, nil, now)
}

// Upstream cluster-autoscaler's kwok provider: the names of its ConfigMaps
// and the annotations and label by which it groups nodes.
const (
	upstreamConfigName    = "kwok-provider-config"
	upstreamTemplatesName = "kwok-provider-templates"
	upstreamGroupLabel    = "kwok-nodegroup"
	upstreamNGAnnotation  = "cluster-autoscaler.kwok.nodegroup/name"
	upstreamManagedKey    = "kwok.x-k8s.io/node"
	upstreamMinAnnotation = "cluster-autoscaler.kwok.nodegroup/min-count"
	upstreamMaxAnnotation = "cluster-autoscaler.kwok.nodegroup/max-count"
)

// upstreamFormat builds nodes as upstream's kwok provider creates them:
// provider id kwok:<name>, the group in an annotation and a label.
type upstreamFormat struct{}

func (upstreamFormat) node(group string, i int, now time.Time) (*corev1.Node, error) {
	name := fmt.Sprintf("lb-%s-%d", group, i)
	n := upstreamTemplate(group, 0)
	n.Name = name
	n.Labels[corev1.LabelHostname] = name
	n.Annotations[upstreamNGAnnotation] = group
	n.Annotations[upstreamManagedKey] = "fake"
	delete(n.Annotations, upstreamMaxAnnotation)
	delete(n.Annotations, upstreamMinAnnotation)
	n.Spec.ProviderID = "kwok:" + name
	n.Status = readyStatus(now)
	return n, nil
}

// upstreamTemplate is the template node of a group in the templates
// ConfigMap; max is its max-count annotation.
func upstreamTemplate(group string, max int) *corev1.Node {
	return &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: group,
			Labels: map[string]string{upstreamGroupLabel: group, corev1.LabelOSStable: "linux", corev1.LabelArchStable: "amd64",
				corev1.LabelTopologyZone: zone, corev1.LabelInstanceTypeStable: "livebench-4cpu"},
			Annotations: map[string]string{upstreamMinAnnotation: "0", upstreamMaxAnnotation: strconv.Itoa(max)}},
		Status: corev1.NodeStatus{Capacity: nodeResources(), Allocatable: nodeResources()},
	}
}

// upstreamConfigMaps are the provider config (templates from a ConfigMap,
// groups by label, no kwok-provider taint) and the templates, one per group.
func upstreamConfigMaps(namespace string, groups []string, max int) ([]*corev1.ConfigMap, error) {
	config := fmt.Sprintf("apiVersion: v1alpha1\nreadNodesFrom: configmap\nnodegroups:\n  fromNodeLabelKey: %q\nnodes:\n  skipTaint: true\nconfigmap:\n  name: %s\n",
		upstreamGroupLabel, upstreamTemplatesName)
	list := corev1.List{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	for _, g := range groups {
		raw, err := json.Marshal(upstreamTemplate(g, max))
		if err != nil {
			return nil, fmt.Errorf("encoding template of node group %q: %w", g, err)
		}
		list.Items = append(list.Items, runtime.RawExtension{Raw: raw})
	}
	templates, err := json.Marshal(list)
	if err != nil {
		return nil, fmt.Errorf("encoding templates: %w", err)
	}
	cm := func(name, key, data string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Data: map[string]string{key: data}}
	}
	return []*corev1.ConfigMap{cm(upstreamConfigName, "config", config), cm(upstreamTemplatesName, "templates", string(templates))}, nil
}

// createConfigMaps creates (or replaces) ConfigMaps.
func createConfigMaps(ctx context.Context, client kubernetes.Interface, cms []*corev1.ConfigMap) error {
	for _, cm := range cms {
		_, err := client.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			_, err = client.CoreV1().ConfigMaps(cm.Namespace).Update(ctx, cm, metav1.UpdateOptions{})
		}
		if err != nil {
			return fmt.Errorf("writing ConfigMap %s/%s: %w", cm.Namespace, cm.Name, err)
		}
	}
	return nil
}
