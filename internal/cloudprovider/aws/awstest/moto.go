package awstest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"testing"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kscale/kscale/internal/testenv"
)

// Region is the region every test uses.
const Region = "eu-central-1"

// Moto is a moto_server listening on a loopback port.
type Moto struct {
	// URL is the server's endpoint, for every service.
	URL   string
	child *testenv.Child
}

// StartMoto starts moto_server for the test and waits until it answers;
// it is killed when the test ends. A missing moto_server fails the test
// with the command that installs it.
func StartMoto(tb testing.TB) *Moto {
	tb.Helper()
	path, err := exec.LookPath("moto_server")
	if err != nil {
		tb.Fatalf("moto_server not found (%v): install it with pip install 'moto[server]'", err)
	}
	port := freePort(tb)
	m := &Moto{URL: "http://127.0.0.1:" + strconv.Itoa(port)}
	m.child = testenv.StartChild(tb, "moto_server", path, []string{"-H", "127.0.0.1", "-p", strconv.Itoa(port)}, nil)
	err = wait.PollUntilContextTimeout(tb.Context(), 100*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		if m.child.Exited() {
			return false, fmt.Errorf("moto_server exited:\n%s", m.child.LogTail())
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.URL+"/moto-api/", nil)
		if err != nil {
			return false, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false, nil
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		tb.Fatalf("waiting for moto_server: %v", err)
	}
	return m
}

// Env are the environment variables that point the SDK's standard
// configuration at endpoint: region, static test credentials and
// AWS_ENDPOINT_URL.
func Env(endpoint string) map[string]string {
	return map[string]string{"AWS_REGION": Region, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
		"AWS_ENDPOINT_URL": endpoint, "AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": "/dev/null", "AWS_SHARED_CREDENTIALS_FILE": "/dev/null"}
}

// LoadOptions point an SDK configuration at endpoint with test
// credentials and short retry back-offs.
func LoadOptions(endpoint string) []func(*config.LoadOptions) error {
	return []func(*config.LoadOptions) error{
		config.WithRegion(Region), config.WithBaseEndpoint(endpoint),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("testing", "testing", "")),
		config.WithSharedConfigFiles([]string{}), config.WithSharedCredentialsFiles([]string{}),
		config.WithRetryer(func() awssdk.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) { o.MaxBackoff = 200 * time.Millisecond })
		}),
	}
}

// Config is an SDK configuration for endpoint (seeding, the stand-in).
func Config(tb testing.TB, endpoint string) awssdk.Config {
	tb.Helper()
	cfg, err := config.LoadDefaultConfig(tb.Context(), LoadOptions(endpoint)...)
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}

func freePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if err := ln.Close(); err != nil {
		tb.Fatal(err)
	}
	return port
}
