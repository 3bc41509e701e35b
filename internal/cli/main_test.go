package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
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
		os.Exit(Execute(args, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
