// Package e2e holds kscale's end-to-end and RBAC tests: each component runs
// through the real command tree (cli.NewRootCommand, in this process, or
// the test binary re-executed as a child running cli.Execute) against a
// real control plane from internal/testenv, under the ServiceAccounts and
// RBAC of deploy/.
package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/kscale/kscale/internal/cli"
)

// childArgsEnv, when set, makes the test binary run `kscale` with the JSON
// array of arguments it holds instead of the tests: end-to-end tests start
// replicas as processes of their own so that they can SIGKILL one.
const childArgsEnv = "KSCALE_CLI_TEST_CHILD_ARGS"

func TestMain(m *testing.M) {
	if raw := os.Getenv(childArgsEnv); raw != "" {
		var args []string
		if err := json.Unmarshal([]byte(raw), &args); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", childArgsEnv, err)
			os.Exit(2)
		}
		os.Exit(cli.Execute(args, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
