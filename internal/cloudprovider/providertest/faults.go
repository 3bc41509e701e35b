package providertest

import (
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
)

// ErrInjectedOutage is what WriteFaults answers while armed.
var ErrInjectedOutage = errors.New("injected API outage")

// WriteFaults fails a Kubernetes client's write requests while armed, as
// an outage of the management cluster's API would; reads pass, so a
// provider fails at the write it makes. Install Wrap as the client
// config's WrapTransport.
type WriteFaults struct{ armed atomic.Bool }

// Wrap returns rt with the faults in front of it.
func (f *WriteFaults) Wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		if f.armed.Load() && r.Method != http.MethodGet {
			return nil, ErrInjectedOutage
		}
		return rt.RoundTrip(r)
	})
}

// Arm fails the writes until t ends.
func (f *WriteFaults) Arm(t *testing.T) {
	f.armed.Store(true)
	t.Cleanup(func() { f.armed.Store(false) })
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
