package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// karpenterShaped is a pricing file in the shape Karpenter generates: a
// header comment with the time, a map keyed by region, family comments,
// several entries per line.
const karpenterShaped = `package pricing

// generated at 2026-01-02T03:04:05Z for us-east-1

import ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

var InitialOnDemandPricesAWS = map[string]map[ec2types.InstanceType]float64{
	// us-east-1
	"us-east-1": {
		// m5 family
		"m5.large": 0.096000, "m5.xlarge": 0.192000,
		// t3 family
		"t3.micro": 0.010400,
	},
	"us-west-2": {
		"m5.large": 0.1,
	},
}
`

func TestExtract(t *testing.T) {
	got, err := extract([]byte(karpenterShaped), "us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	want := table{Region: "us-east-1", GeneratedAt: "2026-01-02T03:04:05Z",
		Prices: map[string]float64{"m5.large": 0.096, "m5.xlarge": 0.192, "t3.micro": 0.0104}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("extract = %+v, want %+v", got, want)
	}
}

// TestExtractRefuses: a file that is not what the generator expects fails
// with an error naming the problem (and the line for a bad entry).
func TestExtractRefuses(t *testing.T) {
	for _, tc := range []struct{ name, src, region, want string }{
		{"missing region", karpenterShaped, "eu-west-1", `no prices for region "eu-west-1" (the file has ["us-east-1" "us-west-2"])`},
		{"no date", strings.Replace(karpenterShaped, "generated at", "made", 1), "us-east-1", `no "generated at" comment`},
		{"negative", strings.Replace(karpenterShaped, "0.192000", "-0.192", 1), "us-east-1", "line 11: price of m5.xlarge: want a number"},
		{"zero", strings.Replace(karpenterShaped, "0.192000", "0.0", 1), "us-east-1", "line 11: price of m5.xlarge: want a positive number, got 0.0"},
		{"not a number", strings.Replace(karpenterShaped, "0.192000", `"x"`, 1), "us-east-1", "line 11: price of m5.xlarge: want a number"},
		{"duplicate", strings.Replace(karpenterShaped, `"m5.xlarge"`, `"m5.large"`, 1), "us-east-1", "line 11: m5.large appears twice"},
		{"comma in a name", strings.Replace(karpenterShaped, `"t3.micro"`, `"t3,micro"`, 1), "us-east-1", "line 13: want a quoted instance type name"},
		{"not Go", "package", "us-east-1", "parsing: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := extract([]byte(tc.src), tc.region)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("extract: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestCommittedTableIsGenerated: the table the AWS provider embeds is
// exactly what render writes for the prices and source its header names
// (format, order, header, pinned source); TestCommittedTableMatchesSource
// checks the prices themselves.
func TestCommittedTableIsGenerated(t *testing.T) {
	data, err := os.ReadFile("../../internal/cloudprovider/aws/instance_prices.csv")
	if err != nil {
		t.Fatal(err)
	}
	tbl := parseTable(t, data)
	if tbl.Module != sourceModule || tbl.Version != sourceVersion || tbl.File != sourceFile {
		t.Errorf("the table's source is %s %s %s; the generator pins %s %s %s: run make aws-prices",
			tbl.Module, tbl.Version, tbl.File, sourceModule, sourceVersion, sourceFile)
	}
	if len(tbl.Prices) < 500 {
		t.Errorf("the table has %d prices; Karpenter's us-east-1 table has over a thousand", len(tbl.Prices))
	}
	if got := render(tbl); !bytes.Equal(got, data) {
		t.Error("the table differs from what the generator writes for its own header and prices: run make aws-prices")
	}
}

// TestCommittedTableMatchesSource regenerates the table from the pinned
// Karpenter module (go mod download: the Go module proxy, or the module
// cache once fetched) and compares it byte for byte, so an edited price
// or a forgotten `make aws-prices` after a pin change fails.
func TestCommittedTableMatchesSource(t *testing.T) {
	out := filepath.Join(t.TempDir(), "prices.csv")
	if err := run(t.Context(), out, sourceVersion, "us-east-1"); err != nil {
		t.Fatalf("generating: %v", err)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../internal/cloudprovider/aws/instance_prices.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("internal/cloudprovider/aws/instance_prices.csv differs from the generator's output: run make aws-prices")
	}
}

// parseTable reads a rendered table back: the source, date and region
// from the header, the prices from the rows.
func parseTable(t *testing.T, data []byte) table {
	t.Helper()
	tbl := table{Prices: map[string]float64{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "# source: "); ok {
			f := strings.Fields(rest)
			if len(f) != 3 {
				t.Fatalf("source line %q: want module version file", line)
			}
			tbl.Module, tbl.Version, tbl.File = f[0], f[1], f[2]
		}
		if rest, ok := strings.CutPrefix(line, "# generated at: "); ok {
			tbl.GeneratedAt = rest
		}
		if rest, ok := strings.CutPrefix(line, "# region: "); ok {
			tbl.Region = rest
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		name, price, _ := strings.Cut(line, ",")
		v, err := strconv.ParseFloat(price, 64)
		if err != nil {
			t.Fatalf("row %q: %v", line, err)
		}
		tbl.Prices[name] = v
	}
	return tbl
}

// FuzzExtract: any input yields an error or positive prices under
// non-empty names without commas, which render writes as rows that parse.
func FuzzExtract(f *testing.F) {
	f.Add([]byte(karpenterShaped))
	f.Add([]byte("package p\n// generated at x for y\nvar v = map[string]int{\"us-east-1\": {\"a\": 1e309}}"))
	f.Add([]byte("package p\nvar v = T{\"us-east-1\": {}}"))
	f.Fuzz(func(t *testing.T, src []byte) {
		tbl, err := extract(src, "us-east-1")
		if err != nil {
			return
		}
		for name, v := range tbl.Prices {
			if name == "" || strings.ContainsAny(name, ",\n\r") || !(v > 0) {
				t.Fatalf("accepted %q = %v", name, v)
			}
		}
	})
}
