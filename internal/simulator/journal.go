package simulator

// op is the kind of a recorded snapshot change.
type op uint8

const (
	opAddNode op = iota
	opRemoveNode
	opAddPod
	opRemovePod
	opAddPods
	opFunc
)

// change is one entry of the undo log.
type change struct {
	op    op
	node  *nodeInfo
	entry *podEntry
	pos   int
	undo  func()
}

// record appends a change to the undo log while a fork is open.
func (s *Snapshot) record(c change) {
	if len(s.forks) > 0 {
		s.journal = append(s.journal, c)
	}
}

// Fork starts a new layer of changes. Every change until the matching
// Revert or Commit belongs to it.
func (s *Snapshot) Fork() {
	s.forks = append(s.forks, len(s.journal))
}

// Revert undoes every change since the last Fork and closes that layer.
// It is a no-op without an open fork.
func (s *Snapshot) Revert() {
	if len(s.forks) == 0 {
		return
	}
	mark := s.forks[len(s.forks)-1]
	s.forks = s.forks[:len(s.forks)-1]
	for i := len(s.journal) - 1; i >= mark; i-- {
		s.undo(&s.journal[i])
		s.journal[i] = change{}
	}
	s.journal = s.journal[:mark]
}

// Commit keeps the changes since the last Fork, merging them into the
// enclosing layer (or making them permanent at the outermost layer). It is
// a no-op without an open fork.
func (s *Snapshot) Commit() {
	if len(s.forks) == 0 {
		return
	}
	s.forks = s.forks[:len(s.forks)-1]
	if len(s.forks) == 0 {
		clear(s.journal)
		s.journal = s.journal[:0]
	}
}

// Forked reports how many forks are open.
func (s *Snapshot) Forked() int { return len(s.forks) }

func (s *Snapshot) undo(c *change) {
	switch c.op {
	case opAddNode:
		s.nodes = s.nodes[:len(s.nodes)-1]
		delete(s.byName, c.node.node.Name)
	case opRemoveNode:
		s.nodes = append(s.nodes, nil)
		copy(s.nodes[c.pos+1:], s.nodes[c.pos:])
		s.nodes[c.pos] = c.node
		s.byName[c.node.node.Name] = c.node
	case opAddPod:
		s.unlinkAt(c.node, len(c.node.pods)-1)
	case opAddPods:
		s.unlinkLast(c.node, c.pos)
	case opRemovePod:
		n := c.node
		last := len(n.pods)
		s.link(c.entry, n)
		copy(n.pods[c.pos+1:], n.pods[c.pos:last])
		n.pods[c.pos] = c.entry
	case opFunc:
		c.undo()
	}
}
