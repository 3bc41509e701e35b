package simulator

// OrderNodes puts the named nodes first, in the given order, and every
// other node after them in its current order. Names not in the snapshot
// and repeated names are ignored. FilterSchedulable tries nodes in this
// order, so a caller holding a long-lived snapshot can rank its nodes for
// one simulation without rebuilding it. Like every change, the new order
// belongs to the open fork: Revert restores the previous order.
func (s *Snapshot) OrderNodes(names []string) {
	old := s.nodes
	out := make([]*nodeInfo, 0, len(old))
	seen := make(map[*nodeInfo]bool, len(names))
	for _, name := range names {
		if n, ok := s.byName[name]; ok && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, n := range old {
		if !seen[n] {
			out = append(out, n)
		}
	}
	s.nodes = out
	s.recordFunc(func() { s.nodes = old })
}
