package fidelity

import (
	"fmt"
)

// RunConfig says which seeds to compare.
type RunConfig struct {
	// FirstSeed is the first seed; seeds are taken in order from it.
	FirstSeed int64
	// MinPairs stops the run once this many pairs were compared.
	MinPairs int64
	// MaxClusters stops the run after this many clusters (0: no limit).
	MaxClusters int64
	// InFlight is how many clusters are generated and sent to the oracle
	// ahead of the one being compared (default 8).
	InFlight int
}

type inFlight struct {
	c       *Cluster
	resp    <-chan *Response
	seq     *Sequence
	seqResp <-chan *Response
	err     error
}

// Run generates clusters from cfg.FirstSeed on, sends each to the oracle
// while the simulator answers the previous ones, and compares. Each seed
// gives two cases: the generated cluster, whose pending pods are checked
// one by one, and its ReplicaCase, scheduled in sequence. It returns the
// tally and every disagreement found.
func Run(o *Oracle, cfg RunConfig) (*Tally, []Disagreement, error) {
	if cfg.InFlight <= 0 {
		cfg.InFlight = 8
	}
	queue := make(chan inFlight, cfg.InFlight)
	stop := make(chan struct{})
	go func() {
		defer close(queue)
		for seed := cfg.FirstSeed; ; seed++ {
			c := Generate(seed)
			item := inFlight{c: c, resp: o.Submit(c.Request())}
			if item.seq, item.err = SimulateSequence(ReplicaCase(c)); item.err == nil {
				item.seqResp = o.Submit(item.seq.Request())
			}
			select {
			case queue <- item:
			case <-stop:
				return
			}
		}
	}()
	defer func() {
		close(stop)
		for range queue { // let the generator finish; answers are dropped
		}
	}()
	t := NewTally()
	var all []Disagreement
	for item := range queue {
		if item.err != nil {
			return t, all, fmt.Errorf("seed %d: placement case: %w", item.c.Seed, item.err)
		}
		sim, err := item.c.Simulate()
		if err != nil {
			return t, all, fmt.Errorf("seed %d: simulator: %w", item.c.Seed, err)
		}
		resp, ok := <-item.resp
		if !ok {
			return t, all, fmt.Errorf("seed %d: %w", item.c.Seed, o.Err())
		}
		if resp.Error != "" {
			return t, all, fmt.Errorf("seed %d: oracle: %s", item.c.Seed, resp.Error)
		}
		ds, err := Compare(item.c, resp, sim, t)
		if err != nil {
			return t, all, fmt.Errorf("seed %d: %w", item.c.Seed, err)
		}
		seqResp, ok := <-item.seqResp
		if !ok {
			return t, all, fmt.Errorf("seed %d: %w", item.c.Seed, o.Err())
		}
		if seqResp.Error != "" {
			return t, all, fmt.Errorf("seed %d: oracle, placement case: %s", item.c.Seed, seqResp.Error)
		}
		seqDs, err := item.seq.Compare(seqResp, t)
		if err != nil {
			return t, all, fmt.Errorf("seed %d: placement case: %w", item.c.Seed, err)
		}
		ds = append(ds, seqDs...)
		for f, n := range item.c.Features {
			t.Features[f] += n
		}
		all = append(all, ds...)
		if t.Pairs >= cfg.MinPairs || cfg.MaxClusters > 0 && t.Clusters >= cfg.MaxClusters {
			break
		}
	}
	return t, all, nil
}
