package live_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/kscale/kscale/internal/testenv"
)

// env is the control plane shared by every test of this package; each test
// works in its own namespace or on its own objects.
var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	env, err = testenv.New(context.Background(), testenv.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer env.Stop()
	return m.Run()
}
