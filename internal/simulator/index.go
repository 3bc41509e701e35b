package simulator

// labelKV is one label key and value.
type labelKV struct{ key, value string }

// termRef names one required anti-affinity term of a bound pod.
type termRef struct {
	e    *podEntry
	term int
}

// indexes speed up the searches of the inter-pod filters: pods by label,
// and bound pods' anti-affinity terms by a label every pod they select
// carries. The snapshot builds them on first use and then keeps them
// current on every change.
type indexes struct {
	byLabel     map[labelKV]map[*podEntry]struct{}
	antiByLabel map[labelKV]map[termRef]struct{}
	antiGeneric map[termRef]struct{}
}

func (s *Snapshot) indexes() *indexes {
	if s.idx == nil {
		s.idx = &indexes{
			byLabel:     map[labelKV]map[*podEntry]struct{}{},
			antiByLabel: map[labelKV]map[termRef]struct{}{},
			antiGeneric: map[termRef]struct{}{},
		}
		for _, n := range s.nodes {
			for _, e := range n.pods {
				s.idx.add(e)
			}
		}
	}
	return s.idx
}

func (x *indexes) add(e *podEntry) {
	for k, v := range e.pod.Labels {
		kv := labelKV{k, v}
		set := x.byLabel[kv]
		if set == nil {
			set = map[*podEntry]struct{}{}
			x.byLabel[kv] = set
		}
		set[e] = struct{}{}
	}
	for i := range e.spec.anti {
		t := &e.spec.anti[i]
		ref := termRef{e, i}
		if t.IndexKey == "" {
			x.antiGeneric[ref] = struct{}{}
			continue
		}
		kv := labelKV{t.IndexKey, t.IndexValue}
		set := x.antiByLabel[kv]
		if set == nil {
			set = map[termRef]struct{}{}
			x.antiByLabel[kv] = set
		}
		set[ref] = struct{}{}
	}
}

func (x *indexes) remove(e *podEntry) {
	for k, v := range e.pod.Labels {
		delete(x.byLabel[labelKV{k, v}], e)
	}
	for i := range e.spec.anti {
		t := &e.spec.anti[i]
		ref := termRef{e, i}
		if t.IndexKey == "" {
			delete(x.antiGeneric, ref)
			continue
		}
		delete(x.antiByLabel[labelKV{t.IndexKey, t.IndexValue}], ref)
	}
}

// eachCandidate calls f for every bound pod that may carry key=value: the
// indexed pods when key is set, else every pod.
func (s *Snapshot) eachCandidate(key, value string, f func(*podEntry)) {
	if key == "" {
		for _, n := range s.nodes {
			for _, e := range n.pods {
				f(e)
			}
		}
		return
	}
	for e := range s.indexes().byLabel[labelKV{key, value}] {
		f(e)
	}
}

// eachAntiTermFor calls f for every bound pod's anti-affinity term that
// may select a pod with the given labels; indexed is true when the term was
// found under its index label, which the pod carries.
func (s *Snapshot) eachAntiTermFor(podLabels map[string]string, f func(ref termRef, indexed bool)) {
	if s.antiPods == 0 {
		return
	}
	x := s.indexes()
	for ref := range x.antiGeneric {
		f(ref, false)
	}
	if len(x.antiByLabel) == 0 {
		return
	}
	for k, v := range podLabels {
		for ref := range x.antiByLabel[labelKV{k, v}] {
			f(ref, true)
		}
	}
}
