package testenv

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Child is a process a test started with StartChild, typically the test
// binary itself re-executed to run one component as its own process.
type Child struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// StartChild starts path with args and extra environment variables, its
// output in a log file, with the harness's guarantees: it dies with the
// test binary (parent-death signal) and is killed and reaped when the test
// ends. Its log is printed when the test failed.
func StartChild(tb testing.TB, name, path string, args, env []string) *Child {
	tb.Helper()
	return startChild(tb, name, path, args, env, nil)
}

// StartPipedChild is StartChild for a child spoken to over its standard
// streams: it returns the child's stdin and stdout, and only its stderr
// goes to the log. The stdout pipe stays readable after the child exits,
// until the caller closes it.
func StartPipedChild(tb testing.TB, name, path string, args []string) (*Child, io.WriteCloser, io.ReadCloser) {
	tb.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	c := startChild(tb, name, path, args, nil, func(cmd *exec.Cmd) {
		cmd.Stdin, cmd.Stdout = inR, outW
	})
	// The child holds its own copies of these ends now.
	_ = inR.Close()
	_ = outW.Close()
	tb.Cleanup(func() {
		_ = inW.Close()
		_ = outR.Close()
	})
	return c, inW, outR
}

func startChild(tb testing.TB, name, path string, args, env []string, pipes func(*exec.Cmd)) *Child {
	tb.Helper()
	c := &Child{name: name, log: filepath.Join(tb.TempDir(), name+".log"), done: make(chan struct{})}
	logFile, err := os.Create(c.log)
	if err != nil {
		tb.Fatal(err)
	}
	c.cmd = exec.Command(path, args...)
	c.cmd.Env = append(os.Environ(), env...)
	c.cmd.Stdout, c.cmd.Stderr = logFile, logFile
	if pipes != nil {
		pipes(c.cmd)
	}
	if err := startProcess(c.cmd); err != nil {
		_ = logFile.Close()
		tb.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		_ = c.cmd.Wait()
		_ = logFile.Close()
		close(c.done)
	}()
	tb.Cleanup(func() {
		c.Kill()
		if tb.Failed() {
			tb.Logf("log of %s:\n%s", name, c.LogTail())
		}
	})
	return c
}

// Kill sends SIGKILL to the child's process group, as a node failure or an
// OOM kill would, and waits until it is reaped.
func (c *Child) Kill() {
	select {
	case <-c.done:
		return
	default:
	}
	_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	<-c.done
}

// Signal sends sig to the child process (a graceful stop with SIGTERM,
// for example).
func (c *Child) Signal(sig os.Signal) error { return c.cmd.Process.Signal(sig) }

// Done is closed once the child has exited and been reaped.
func (c *Child) Done() <-chan struct{} { return c.done }

// ExitCode is the child's exit code once Done is closed (-1 when it was
// killed by a signal).
func (c *Child) ExitCode() int {
	<-c.done
	return c.cmd.ProcessState.ExitCode()
}

// Exited reports whether the child has exited.
func (c *Child) Exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// LogTail returns the end of the child's output.
func (c *Child) LogTail() string { return tailFile(c.log) }
