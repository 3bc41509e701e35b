package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// autoscaler is the running process under test.
type autoscaler struct {
	cmd     *exec.Cmd
	started time.Time
	logPath string
	exited  chan struct{}
	waitErr error

	mu        sync.Mutex
	increases []Increase
}

// autoscalerCommand returns the binary, arguments and extra environment of
// the autoscaler: default flags plus what the harness must set (the
// cluster, the metrics address on a free loopback port) and cfg.ExtraArgs.
func autoscalerCommand(cfg *Config, kubeconfig, cloudConfig, address string) (string, []string, []string) {
	extra := cfg.ExtraArgs
	if cfg.CPUProfile != "" {
		extra = append([]string{profileArg}, extra...)
	}
	if cfg.Upstream != "" {
		args := []string{"--cloud-provider=kwok", "--kubeconfig=" + kubeconfig, "--address=" + address}
		// Upstream's kwok provider reads its client from KUBECONFIG in
		// "local" mode and its ConfigMaps from POD_NAMESPACE.
		env := []string{"KWOK_PROVIDER_MODE=local", "KUBECONFIG=" + kubeconfig, "POD_NAMESPACE=kube-system"}
		return cfg.Upstream, append(args, extra...), env
	}
	args := []string{"node-autoscaler", "--cloud-provider=kwok", "--cloud-config=" + cloudConfig,
		"--kubeconfig=" + kubeconfig, "--address=" + address}
	return cfg.Kscale, append(args, extra...), nil
}

// startAutoscaler starts the process with its output in dir/autoscaler.log;
// each line is also handed to parse. The process gets a parent-death signal
// from a thread that lives exactly as long as it does.
func startAutoscaler(bin string, args, env []string, dir string, parse *IncreaseParser) (*autoscaler, error) {
	a := &autoscaler{logPath: filepath.Join(dir, "autoscaler.log"), exited: make(chan struct{})}
	logFile, err := os.Create(a.logPath)
	if err != nil {
		return nil, fmt.Errorf("creating autoscaler log: %w", err)
	}
	pr, pw := io.Pipe()
	a.cmd = exec.Command(bin, args...)
	a.cmd.Env = append(os.Environ(), env...)
	a.cmd.Stdout, a.cmd.Stderr = pw, pw
	a.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	go a.readLog(pr, logFile, parse)
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the child
		a.started = time.Now()
		if err := a.cmd.Start(); err != nil {
			started <- err
			_ = pw.Close()
			return
		}
		started <- nil
		a.waitErr = a.cmd.Wait()
		_ = pw.Close()
		close(a.exited)
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	return a, nil
}

func (a *autoscaler) readLog(r io.Reader, w *os.File, parse *IncreaseParser) {
	defer func() { _ = w.Close() }()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		_, _ = fmt.Fprintln(w, line)
		if inc, ok := parse.Parse(line, time.Now()); ok {
			a.mu.Lock()
			a.increases = append(a.increases, inc)
			a.mu.Unlock()
		}
	}
	_, _ = io.Copy(io.Discard, r)
}

// Increases returns the increases logged so far.
func (a *autoscaler) Increases() []Increase {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Increase(nil), a.increases...)
}

// pid is the process id.
func (a *autoscaler) pid() int { return a.cmd.Process.Pid }

// running reports whether the process has not exited.
func (a *autoscaler) running() bool {
	select {
	case <-a.exited:
		return false
	default:
		return true
	}
}

// stop kills the process group. SIGKILL, not SIGTERM: upstream's kwok
// provider deletes every node it manages on SIGTERM, and the cluster is
// thrown away anyway.
func (a *autoscaler) stop(ctx context.Context) {
	if !a.running() {
		return
	}
	_ = syscall.Kill(-a.pid(), syscall.SIGKILL)
	select {
	case <-a.exited:
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
	}
}

// logTail is the end of the autoscaler's log, for error messages.
func (a *autoscaler) logTail() string {
	data, err := os.ReadFile(a.logPath)
	if err != nil {
		return ""
	}
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return string(data)
}
