package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// startRequest asks the spawner thread to start a command.
type startRequest struct {
	cmd  *exec.Cmd
	done chan error
}

// spawner starts every child process from one goroutine locked to its OS
// thread. Linux delivers the parent-death signal when the thread that forked
// the child exits, so forking from a thread that lives as long as the test
// binary makes the signal mean "the test binary died". This is the package's
// only shared state, and it is immutable once started.
var (
	spawnerOnce sync.Once
	spawnerReqs chan startRequest
)

func startProcess(cmd *exec.Cmd) error {
	spawnerOnce.Do(func() {
		spawnerReqs = make(chan startRequest)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread must outlive every child
			for req := range spawnerReqs {
				req.done <- req.cmd.Start()
			}
		}()
	})
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	done := make(chan error, 1)
	spawnerReqs <- startRequest{cmd: cmd, done: done}
	return <-done
}

// process is one running control-plane binary.
type process struct {
	name    string
	path    string
	args    []string
	logPath string
	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error
}

func (p *process) start() error {
	logFile, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("opening log of %s: %w", p.name, err)
	}
	cmd := exec.Command(p.path, p.args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	if err := startProcess(cmd); err != nil {
		_ = logFile.Close()
		return fmt.Errorf("starting %s: %w", p.name, err)
	}
	p.cmd = cmd
	p.exited = make(chan struct{})
	go func() {
		p.waitErr = cmd.Wait()
		_ = logFile.Close()
		close(p.exited)
	}()
	return nil
}

// running reports whether the process has been started and not yet exited.
func (p *process) running() bool {
	if p.cmd == nil {
		return false
	}
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM to the process group and SIGKILL after the grace period.
func (p *process) stop(grace time.Duration) {
	if !p.running() {
		return
	}
	pgid := -p.cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(grace):
		_ = syscall.Kill(pgid, syscall.SIGKILL)
		<-p.exited
	}
}

// logTail returns the last lines of the process log, for error messages.
func (p *process) logTail() string { return tailFile(p.logPath) }

// tailFile returns the last few kilobytes of a log file, starting at a
// line boundary; empty when it cannot be read.
func tailFile(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	const maxBytes = 4000
	if len(data) > maxBytes {
		data = data[len(data)-maxBytes:]
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	return string(data)
}

// waitFor polls check until it succeeds, the process exits or ctx ends.
func (p *process) waitFor(ctx context.Context, check func(context.Context) error) error {
	ticker := time.NewTicker(100 * time.Millisecond)
	defer ticker.Stop()
	var last error
	for {
		if last = check(ctx); last == nil {
			return nil
		}
		select {
		case <-p.exited:
			return fmt.Errorf("%s exited (%v) before becoming ready; log tail:\n%s", p.name, p.waitErr, p.logTail())
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s to become ready: %w (last check: %v); log tail:\n%s",
				p.name, ctx.Err(), last, p.logTail())
		case <-ticker.C:
		}
	}
}

// freePorts returns n distinct TCP ports on 127.0.0.1 that were free a moment ago.
func freePorts(n int) ([]int, error) {
	listeners := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		listeners = append(listeners, l)
		_, port, _ := net.SplitHostPort(l.Addr().String())
		p, err := strconv.Atoi(port)
		if err != nil {
			return nil, errors.New("finding a free port: bad listener address")
		}
		ports = append(ports, p)
	}
	return ports, nil
}
