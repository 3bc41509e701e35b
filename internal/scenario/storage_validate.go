package scenario

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// storage checks the storage classes, volumes and claims, defaults the
// claims' namespace and returns the claims by namespace/name.
func (c *checker) storage(s *Scenario) map[string]bool {
	classes := map[string]bool{}
	for i, sc := range s.StorageClasses {
		at := p("storageClasses", i)
		f := func(field string) []any { return append(slices.Clone(at), field) }
		c.uniqueName(classes, f("name"), "storageClasses", sc.Name)
		c.failf(sc.Provisioner == "", f("provisioner"), "storageClasses %q: provisioner: required (kubernetes.io/no-provisioner for static volumes)", sc.Name)
		c.failf(sc.VolumeBindingMode != "" && sc.VolumeBindingMode != BindingImmediate && sc.VolumeBindingMode != BindingWaitForFirstConsumer,
			f("volumeBindingMode"), "storageClasses %q: volumeBindingMode: must be %s or %s, got %q", sc.Name, BindingImmediate, BindingWaitForFirstConsumer, sc.VolumeBindingMode)
	}
	volumes := map[string]bool{}
	for i, pv := range s.PersistentVolumes {
		at := p("persistentVolumes", i)
		f := func(field string) []any { return append(slices.Clone(at), field) }
		c.uniqueName(volumes, f("name"), "persistentVolumes", pv.Name)
		c.failf(pv.Capacity.Sign() <= 0, f("capacity"), "persistentVolumes %q: capacity: required, a positive size such as 10Gi", pv.Name)
		c.accessModes(pv.AccessModes, f("accessModes"), "persistentVolumes "+pv.Name)
		c.failf(pv.NodeAffinity != nil && len(pv.NodeAffinity.Value.NodeSelectorTerms) == 0, f("nodeAffinity"),
			"persistentVolumes %q: nodeAffinity: needs nodeSelectorTerms", pv.Name)
	}
	claims, boundTo := map[string]bool{}, map[string]string{}
	for i := range s.PersistentVolumeClaims {
		pvc := &s.PersistentVolumeClaims[i]
		at := p("persistentVolumeClaims", i)
		f := func(field string) []any { return append(slices.Clone(at), field) }
		if pvc.Namespace == "" {
			pvc.Namespace = "default"
		}
		key := pvc.Namespace + "/" + pvc.Name
		c.failf(len(validation.IsDNS1123Subdomain(pvc.Name)) > 0, f("name"), "persistentVolumeClaims.name: %q is not a valid name", pvc.Name)
		c.failf(claims[key], f("name"), "persistentVolumeClaims.name: %q defined twice", key)
		claims[key] = true
		c.claimSpec(pvc.ClaimSpec, at, classes, "persistentVolumeClaims "+key)
		if pvc.Volume == "" {
			continue
		}
		c.failf(!volumes[pvc.Volume], f("volume"), "persistentVolumeClaims %q: volume: %q is not a listed persistent volume", key, pvc.Volume)
		other, taken := boundTo[pvc.Volume]
		c.failf(taken, f("volume"), "persistentVolumeClaims %q: volume: %q is bound to claim %q already", key, pvc.Volume, other)
		boundTo[pvc.Volume] = key
	}
	c.claimTemplates(s, classes)
	return claims
}

// claimSpec checks a claim's class (listed, or none), size and access
// modes, written at at.
func (c *checker) claimSpec(cs ClaimSpec, at []any, classes map[string]bool, what string) {
	f := func(field string) []any { return append(slices.Clone(at), field) }
	c.failf(cs.StorageClass != "" && !classes[cs.StorageClass], f("storageClass"),
		"%s: storageClass: %q is not a listed storage class", what, cs.StorageClass)
	c.failf(cs.Size.Sign() <= 0, f("size"), "%s: size: required, a positive size such as 10Gi", what)
	c.accessModes(cs.AccessModes, f("accessModes"), what)
}

func (c *checker) accessModes(modes []corev1.PersistentVolumeAccessMode, at []any, what string) {
	for i, m := range modes {
		c.failf(!slices.Contains(accessModes, m), append(slices.Clone(at), i), "%s: accessModes: must be some of %v, got %q", what, accessModes, m)
	}
}

// claimTemplates checks the workloads' claim templates and ephemeral
// volumes.
func (c *checker) claimTemplates(s *Scenario, classes map[string]bool) {
	for i, w := range s.Workloads {
		names := map[string]bool{}
		for _, v := range w.Pod.Volumes {
			names[v.Name] = true
		}
		for j, t := range w.VolumeClaimTemplates {
			at := p("workloads", i, "volumeClaimTemplates", j)
			c.failf(w.Kind != "ReplicaSet", at, "workloads %q: volumeClaimTemplates are only for kind ReplicaSet (a StatefulSet's pods)", w.Name)
			c.failf(len(validation.IsDNS1123Label(t.Name)) > 0, append(slices.Clone(at), "name"),
				"workloads %q: volumeClaimTemplates.name: %q is not a valid name", w.Name, t.Name)
			c.failf(names[t.Name], append(slices.Clone(at), "name"), "workloads %q: volumeClaimTemplates.name: %q names another volume of the pod", w.Name, t.Name)
			names[t.Name] = true
			c.claimSpec(t.ClaimSpec, at, classes, "workloads "+w.Name+": volumeClaimTemplates "+t.Name)
		}
		for j, v := range w.Pod.Volumes {
			if v.Ephemeral != nil {
				c.claimSpec(*v.Ephemeral, p("workloads", i, "pod", "volumes", j, "ephemeral"), classes, "workloads "+w.Name+": pod.volumes "+v.Name)
			}
		}
	}
}

// uniqueName checks that name is a valid object name not yet in seen
// (the list's names so far) and adds it.
func (c *checker) uniqueName(seen map[string]bool, at []any, list, name string) {
	c.failf(len(validation.IsDNS1123Subdomain(name)) > 0, at, "%s.name: %q is not a valid name", list, name)
	c.failf(seen[name], at, "%s.name: %q defined twice", list, name)
	seen[name] = true
}
