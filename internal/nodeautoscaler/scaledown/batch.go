package scaledown

import "github.com/kscale/kscale/internal/scheduling"

// maxBatch bounds how many candidates one simulation removes at once.
const maxBatch = 128

// removeCandidates tries the candidates in order and returns the ones that
// can go, stopping once limit were found (a negative limit: none), and how
// many candidates it went through. Consecutive candidates are removed together in one simulation;
// the batch doubles while batches succeed and halves when one fails, down
// to single candidates, which are tried alone and blocked with their
// reason. A batch's pods never land on nodes of the same batch, which only
// makes the result more conservative than one node at a time.
func (r *removal) removeCandidates(cands []*nodeState, limit int) ([]*nodeState, int) {
	var removed []*nodeState
	size := 1
	i := 0
	for i < len(cands) {
		if r.expired() {
			break
		}
		if limit >= 0 {
			if len(removed) >= limit {
				break
			}
			size = min(size, limit-len(removed))
		}
		moves, used := r.collect(cands[i:], size)
		if len(moves) == 0 {
			i += used
			continue
		}
		if !r.removeAll(moves) {
			if len(moves) > 1 {
				size = max(1, len(moves)/2)
				continue
			}
			i += used
			continue
		}
		for _, m := range moves {
			removed = append(removed, m.s)
		}
		i += used
		size = min(maxBatch, 2*size)
	}
	return removed, i
}

// collect prepares up to limit consecutive candidates that can go together
// as far as free resources and group minimums tell; it returns their moves
// and how many candidates it consumed (blocked ones included).
func (r *removal) collect(cands []*nodeState, limit int) ([]move, int) {
	var moves []move
	var gone, need scheduling.Resources
	use := map[string]int{}
	used := 0
	for ; used < len(cands) && len(moves) < limit; used++ {
		s := cands[used]
		if len(moves) > 0 && (s.blocked == nil && r.allow[s.Group]-use[s.Group] <= 0 && use[s.Group] > 0) {
			break
		}
		m, ok := r.prepare(s)
		if !ok {
			continue
		}
		totalNeed := sum(&need, &m.need)
		totalGone := sum(&gone, &m.nodeFree)
		if len(moves) > 0 && !fitsFree(&totalNeed, &r.free, &totalGone) {
			break
		}
		moves = append(moves, m)
		need, gone = totalNeed, totalGone
		use[s.Group]++
	}
	return moves, used
}

func sum(a, b *scheduling.Resources) scheduling.Resources {
	return scheduling.Resources{MilliCPU: a.MilliCPU + b.MilliCPU, Memory: a.Memory + b.Memory, Pods: a.Pods + b.Pods}
}
