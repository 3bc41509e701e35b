package recommender

import (
	"errors"
	"fmt"
	"time"

	"github.com/kscale/kscale/internal/vpa/checkpoint"
	"github.com/kscale/kscale/internal/vpa/estimator"
	"github.com/kscale/kscale/internal/vpa/features"
	"github.com/kscale/kscale/internal/vpa/model"
)

// DefaultRecommenderName is the name of the recommender that serves VPAs
// naming no recommender.
const DefaultRecommenderName = "default"

// Config holds the recommender's settings.
type Config struct {
	// Interval is the loop period (--recommender-interval, 1m).
	Interval time.Duration
	// Name is this recommender's name (--recommender-name, "default").
	Name string
	// MemorySaver keeps only pods some VPA selects (--memory-saver).
	MemorySaver bool
	// Workers is the number of concurrent VPA status writers (--update-worker-count, 10).
	Workers int
	// AggregateGCInterval is the least time between aggregate collections (1h).
	AggregateGCInterval time.Duration
	// Model holds the aggregation settings.
	Model model.Config
	// Estimator holds the estimation settings.
	Estimator estimator.Config
	// Checkpoints holds the checkpoint settings.
	Checkpoints checkpoint.Config
	// Features are the VPA feature gates that are on (--feature-gates);
	// PerVPAConfig makes VPAs' container policies override the
	// aggregation settings.
	Features features.Gates
}

// DefaultConfig returns a Config with every upstream default, including
// those where zero is meaningful and Default leaves alone (the safety
// margin, the per-pod minimums and the OOM bump-up).
func DefaultConfig() Config {
	c := Config{Model: *model.DefaultConfig(), Estimator: estimator.DefaultConfig()}
	c.Default()
	return c
}

// Default fills unset fields with the upstream defaults where zero is not
// a meaningful value; an explicit 0 elsewhere stays 0, as upstream.
func (c *Config) Default() {
	if c.Interval == 0 {
		c.Interval = time.Minute
	}
	if c.Name == "" {
		c.Name = DefaultRecommenderName
	}
	if c.Workers == 0 {
		c.Workers = 10
	}
	if c.AggregateGCInterval == 0 {
		c.AggregateGCInterval = time.Hour
	}
	c.Model.Default()
	c.Estimator.Default()
	c.Checkpoints.Default()
}

// Validate reports the first invalid field.
func (c *Config) Validate() error {
	switch {
	case c.Interval <= 0:
		return errors.New("recommenderInterval: must be positive")
	case c.Workers <= 0:
		return errors.New("updateWorkerCount: must be positive")
	case c.AggregateGCInterval <= 0:
		return errors.New("aggregateGCInterval: must be positive")
	}
	if err := c.Model.Validate(); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if err := c.Estimator.Validate(); err != nil {
		return fmt.Errorf("estimator: %w", err)
	}
	if err := c.Checkpoints.Validate(); err != nil {
		return err
	}
	return nil
}
