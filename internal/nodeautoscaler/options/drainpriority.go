package options

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// DrainPriority is one entry of --drain-priority-config: pods from this
// priority up to the next entry's are evicted together and get at most
// Grace to terminate.
type DrainPriority struct {
	// Priority is the lowest pod priority of the range.
	Priority int32
	// Grace caps the pods' termination grace period.
	Grace time.Duration
}

// ParseDrainPriorities parses --drain-priority-config: a comma-separated
// list of priority:seconds (for example "10000:20,1000:100,0:60"). Unlike
// upstream, which logs a malformed list and falls back to
// --max-graceful-termination-sec, a malformed list is an error naming the
// entry.
func ParseDrainPriorities(s string) ([]DrainPriority, error) {
	if s == "" {
		return nil, nil
	}
	var out []DrainPriority
	seen := map[int32]bool{}
	for _, item := range strings.Split(s, ",") {
		prio, grace, ok := strings.Cut(strings.TrimSpace(item), ":")
		if !ok {
			return nil, fmt.Errorf("%q is not priority:seconds", item)
		}
		p, err := strconv.ParseInt(prio, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%q: priority %q is not a 32-bit integer", item, prio)
		}
		g, err := strconv.ParseInt(grace, 10, 64)
		if err != nil || g < 0 || g > math.MaxInt32 {
			return nil, fmt.Errorf("%q: grace period %q is not a number of seconds", item, grace)
		}
		if seen[int32(p)] {
			return nil, fmt.Errorf("priority %d is listed twice", p)
		}
		seen[int32(p)] = true
		out = append(out, DrainPriority{Priority: int32(p), Grace: time.Duration(g) * time.Second})
	}
	return out, nil
}
