package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kscale/kscale/internal/whatif"
	"github.com/kscale/kscale/internal/whatif/fit"
)

// fitCostsFlags are the flags of `kscale fit-costs`.
type fitCostsFlags struct {
	rates, cpu, replicas, output string
	labels                       []string
}

func newFitCostsCommand() *cobra.Command {
	f := &fitCostsFlags{}
	cmd := &cobra.Command{
		Use:   "fit-costs --rates FILE --cpu FILE",
		Short: "Fit per-category CPU costs of kube-apiserver requests from a recorded trace",
		Long: "fit-costs reads per-category request rates and the measured CPU of a kube-apiserver set (CSV or a\n" +
			"Prometheus query_range JSON export), fits each category's CPU-seconds per request by non-negative\n" +
			"least squares, prints the fit's error and writes a cost file for the custom metrics provider's\n" +
			"cost-weighted request rate (docs/apiserver-autoscaling.md).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runFitCosts(cmd, f) },
	}
	cmd.Flags().StringVar(&f.rates, "rates", "", "Trace of request rates per category (req/s): CSV or Prometheus query_range JSON (required)")
	cmd.Flags().StringVar(&f.cpu, "cpu", "", "Trace of the measured CPU in cores; all its columns or series are added (required)")
	cmd.Flags().StringVar(&f.replicas, "replicas", "", "Trace of the replica count; when set, a per-replica base CPU is fitted too")
	cmd.Flags().StringSliceVar(&f.labels, "category-labels", []string{"verb", "scope", "resource"}, "Labels whose values, joined by /, name a Prometheus series' category")
	cmd.Flags().StringVarP(&f.output, "output", "o", "-", "Cost file to write; - writes to standard output")
	return cmd
}

func runFitCosts(cmd *cobra.Command, f *fitCostsFlags) error {
	if f.rates == "" || f.cpu == "" {
		return &UsageError{Err: fmt.Errorf("--rates and --cpu are required")}
	}
	var in fit.Input
	var err error
	for _, x := range []struct {
		flag, path string
		into       **whatif.Table
	}{{"--rates", f.rates, &in.Rates}, {"--cpu", f.cpu, &in.CPU}, {"--replicas", f.replicas, &in.Replicas}} {
		if x.path == "" {
			continue
		}
		if *x.into, err = whatif.ReadTraceFile(x.path, f.labels); err != nil {
			return &UsageError{Err: fmt.Errorf("%s: %w", x.flag, err)}
		}
	}
	res, err := fit.Fit(in)
	if err != nil {
		return &UsageError{Err: err}
	}
	means := make([]float64, len(res.Categories))
	for i, c := range res.Categories {
		for _, v := range in.Rates.Columns[c] {
			means[i] += v
		}
		means[i] /= float64(len(in.Rates.Times))
	}
	var sum strings.Builder
	fmt.Fprintf(&sum, "fit of %d samples: RMSE %.4g cores (%.1f%% of the mean measured CPU), R² %.4f\n", res.Samples, res.RMSE, 100*res.RelativeError, res.R2)
	for i, c := range res.Categories {
		fmt.Fprintf(&sum, "  %-40s %.6g CPU-s/request (mean rate %.4g req/s)\n", c, res.Costs[i], means[i])
	}
	if in.Replicas != nil {
		fmt.Fprintf(&sum, "  %-40s %.6g cores\n", "base CPU per replica", res.BaseCPU)
	}
	if _, err := io.WriteString(cmd.ErrOrStderr(), sum.String()); err != nil {
		return fmt.Errorf("writing the fit: %w", err)
	}
	w := cmd.OutOrStdout()
	if f.output != "-" {
		file, err := os.Create(f.output)
		if err != nil {
			return &UsageError{Err: fmt.Errorf("--output: %w", err)}
		}
		defer func() { _ = file.Close() }()
		w = file
	}
	if err := fit.WriteCosts(w, res, means, strings.Join([]string{f.rates, f.cpu}, " and ")); err != nil {
		return err
	}
	if c, ok := w.(io.Closer); ok && f.output != "-" {
		if err := c.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", f.output, err)
		}
	}
	return nil
}
