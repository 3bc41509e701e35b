package updater

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/kscale/kscale/internal/vpa/features"
)

// Defaults of the updater settings, equal to upstream VPA and Gardener.
const (
	DefaultInterval               = time.Minute
	DefaultMinReplicas            = 2
	DefaultEvictionTolerance      = 0.5
	DefaultEvictionRateLimit      = -1.0
	DefaultEvictionRateBurst      = 1
	DefaultEvictAfterOOMThreshold = 10 * time.Minute
	DefaultPodUpdateThreshold     = 0.1
	DefaultLifetimeThreshold      = 12 * time.Hour
	DefaultAdmissionStatusTimeout = time.Minute
	DefaultStatusNamespace        = "kube-system"
	// AdmissionStatusLeaseName is the Lease the admission webhook renews.
	AdmissionStatusLeaseName = "vpa-admission-controller"
)

// Config holds the updater settings.
type Config struct {
	// Interval is the time between loops; --updater-interval.
	Interval time.Duration
	// MinReplicas is the fewest live pods a controller needs before any is
	// updated, unless the VPA sets updatePolicy.minReplicas; --min-replicas.
	MinReplicas int
	// EvictionTolerance is the fraction of a controller's replicas that may be
	// disrupted at once; --eviction-tolerance.
	EvictionTolerance float64
	// EvictionRateLimit is the global evictions per second, ≤ 0 for no
	// limit; --eviction-rate-limit.
	EvictionRateLimit float64
	// EvictionRateBurst is the rate limiter's burst; --eviction-rate-burst.
	EvictionRateBurst int
	// Thresholds decide which pods are worth updating.
	Thresholds Thresholds
	// UseAdmissionStatus makes every loop check that the admission webhook's
	// status Lease is fresh; --use-admission-controller-status.
	UseAdmissionStatus bool
	// AdmissionStatusTimeout is how old that Lease may be;
	// --admission-controller-status-lease-timeout.
	AdmissionStatusTimeout time.Duration
	// StatusNamespace holds the admission webhook's status Lease.
	StatusNamespace string
	// StatusLease names it (--admission-controller-status-lease-name);
	// default AdmissionStatusLeaseName.
	StatusLease string
	// VPAObjectNamespace restricts the updater to one namespace ("" = all).
	VPAObjectNamespace string
	// IgnoredNamespaces are never updated.
	IgnoredNamespaces []string
	// InPlaceSkipDisruptionBudget lets in-place resizes that restart no
	// container bypass the eviction budget; --in-place-skip-disruption-budget.
	InPlaceSkipDisruptionBudget bool
	// Features are the VPA feature gates that are on; --feature-gates.
	Features features.Gates
}

// Default fills unset fields with the upstream defaults. Zero is a
// meaningful value for MinReplicas, EvictionTolerance, EvictionRateLimit
// and both time thresholds (upstream takes an explicit 0 as 0), so Default
// leaves them alone and callers that build a Config by hand should start
// from DefaultConfig.
func (c *Config) Default() {
	if c.Interval == 0 {
		c.Interval = DefaultInterval
	}
	if c.EvictionRateBurst == 0 {
		c.EvictionRateBurst = DefaultEvictionRateBurst
	}
	if c.AdmissionStatusTimeout == 0 {
		c.AdmissionStatusTimeout = DefaultAdmissionStatusTimeout
	}
	if c.StatusLease == "" {
		c.StatusLease = AdmissionStatusLeaseName
	}
	if c.StatusNamespace == "" {
		c.StatusNamespace = DefaultStatusNamespace
	}
}

// DefaultConfig returns a Config with every upstream default.
func DefaultConfig() Config {
	c := Config{
		MinReplicas:        DefaultMinReplicas,
		EvictionTolerance:  DefaultEvictionTolerance,
		EvictionRateLimit:  DefaultEvictionRateLimit,
		UseAdmissionStatus: true,
		Thresholds: Thresholds{PodUpdate: DefaultPodUpdateThreshold, EvictAfterOOM: DefaultEvictAfterOOMThreshold,
			Lifetime: DefaultLifetimeThreshold},
	}
	c.Default()
	return c
}

// Validate reports the first invalid setting, naming its flag.
func (c *Config) Validate() error {
	var errs []error
	if c.Interval < time.Second {
		errs = append(errs, fmt.Errorf("--updater-interval: must be at least 1s, got %s", c.Interval))
	}
	if c.MinReplicas < 0 {
		errs = append(errs, fmt.Errorf("--min-replicas: must not be negative, got %d", c.MinReplicas))
	}
	if !(c.EvictionTolerance >= 0 && c.EvictionTolerance <= 1) {
		errs = append(errs, fmt.Errorf("--eviction-tolerance: must be within [0, 1], got %g", c.EvictionTolerance))
	}
	if c.EvictionRateBurst < 1 {
		errs = append(errs, fmt.Errorf("--eviction-rate-burst: must be at least 1, got %d", c.EvictionRateBurst))
	}
	if c.Thresholds.EvictAfterOOM < 0 {
		errs = append(errs, fmt.Errorf("--evict-after-oom-threshold: must not be negative, got %s", c.Thresholds.EvictAfterOOM))
	}
	if !(c.Thresholds.PodUpdate >= 0) || math.IsInf(c.Thresholds.PodUpdate, 0) {
		errs = append(errs, fmt.Errorf("--pod-update-threshold: must not be negative, got %g", c.Thresholds.PodUpdate))
	}
	if c.Thresholds.Lifetime < 0 {
		errs = append(errs, fmt.Errorf("--in-recommendation-bounds-eviction-lifetime-threshold: must not be negative, got %s", c.Thresholds.Lifetime))
	}
	if math.IsNaN(c.EvictionRateLimit) || math.IsInf(c.EvictionRateLimit, 0) {
		errs = append(errs, fmt.Errorf("--eviction-rate-limit: must be a number, got %g", c.EvictionRateLimit))
	}
	if c.UseAdmissionStatus && c.AdmissionStatusTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--admission-controller-status-lease-timeout: must be positive, got %s", c.AdmissionStatusTimeout))
	}
	return errors.Join(errs...)
}
