package machinesim

import "time"

// Timing is how a stand-in cloud's machines boot and how often its loop
// runs. Every machine stand-in embeds it in its configuration: the
// Simulator, capienv's infrastructure provider and mcmenv's cloud.
type Timing struct {
	// BootTime is how long a machine takes to become a Node; default 1s.
	BootTime time.Duration
	// Interval is the reconcile period; default 200ms.
	Interval time.Duration
	// ProviderIDPrefix starts every provider id; default "sim:///".
	ProviderIDPrefix string
}

// WithDefaults returns t with each zero field set to its default.
func (t Timing) WithDefaults() Timing {
	if t.BootTime == 0 {
		t.BootTime = time.Second
	}
	if t.Interval == 0 {
		t.Interval = 200 * time.Millisecond
	}
	if t.ProviderIDPrefix == "" {
		t.ProviderIDPrefix = "sim:///"
	}
	return t
}
