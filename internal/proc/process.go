// Package proc supervises the host processes of a conformance run (Argo CD
// components, redis-server, a git server): it starts each in its own process
// group, records them in a state file so another process can stop them later,
// waits for readiness by condition, and stops whole groups so that no
// grandchild outlives the run.
package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Spec describes a process to start.
type Spec struct {
	Name    string   // e.g. "argocd-repo-server"; used in errors and the state file
	Path    string   // binary; a name without a slash is looked up in the harness's PATH
	Args    []string // arguments after argv[0]
	Env     []string // the full environment; nil means an empty one, never os.Environ()
	Dir     string   // working directory ("" = current)
	LogPath string   // stdout and stderr are appended here; parents are created ("" = discarded)
	// StopGrace, if shorter, replaces the grace a Group stops this process
	// with: for a process known to ignore SIGTERM, waiting the full grace
	// only slows every teardown.
	StopGrace time.Duration
	// Launch, when set, is called with the start of the process and runs
	// it: where the child must inherit something of the calling thread (a
	// mount namespace, podshm.Shm.Start).
	Launch func(start func() error) error
	// Outlive keeps the process running after the process that started it
	// ends (`env up`). Otherwise the kernel kills it then (SIGKILL, the
	// parent-death signal), so that a harness ended without its teardown (a
	// `go test -timeout` panic, a SIGKILL) leaves no component serving.
	// Only the process itself is signalled, not what it started.
	Outlive bool
}

// Process is a started process, leader of its own process group.
type Process struct {
	name    string
	logPath string
	cmdline []string
	t       target
	done    chan struct{}
	waitErr error // from exec.Cmd.Wait; written before done is closed, read only after

	stopMu sync.Mutex // serialises Stop so that concurrent callers all wait for the exit
}

// Start starts spec in its own process group (Setpgid), so that a terminal
// Ctrl-C reaches only the harness, which then stops its children in order.
func Start(spec Spec) (*Process, error) {
	name := spec.Name
	if name == "" {
		name = filepath.Base(spec.Path)
	}
	path := spec.Path
	if !strings.ContainsRune(path, os.PathSeparator) {
		p, err := exec.LookPath(path)
		if err != nil {
			return nil, fmt.Errorf("starting %s: %w", name, err)
		}
		path = p
	}
	logFile, err := openLog(spec.LogPath)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	// The child gets its own copy of the descriptor; ours is not needed after Start.
	defer logFile.Close()

	env := spec.Env
	if env == nil {
		env = []string{} // exec.Cmd treats nil as "inherit os.Environ()"
	}
	cmd := &exec.Cmd{
		Path: path,
		Args: append([]string{path}, spec.Args...),
		Env:  env,
		Dir:  spec.Dir,
		// An *os.File is handed to the child directly, so Wait returns when the
		// process exits rather than when the last grandchild closes a pipe.
		Stdout:      logFile,
		Stderr:      logFile,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	if !spec.Outlive {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	exited := make(chan struct{})
	if err := launch(spec.Launch, cmd.Start, exited); err != nil {
		return nil, fmt.Errorf("starting %s (%s): %w", name, path, err)
	}
	pid := cmd.Process.Pid
	// Read before Wait can reap it: an unreaped child's /proc entry is always there.
	st, err := readStat(pid)
	if err != nil {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = cmd.Wait()
		close(exited)
		return nil, fmt.Errorf("reading start time of %s (pid %d): %w", name, pid, err)
	}
	p := &Process{
		name:    name,
		logPath: spec.LogPath,
		cmdline: cmd.Args,
		t:       target{name: name, pid: pid, pgid: pid, startTime: st.startTime},
		done:    make(chan struct{}),
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(exited)
		close(p.done)
	}()
	return p, nil
}

// StartHeld runs start (an exec.Cmd's Start, say) on an OS thread held
// until exited is closed, so that a parent-death signal set on the child
// comes when this process dies, not when a thread of it ends.
func StartHeld(start func() error, exited <-chan struct{}) error {
	return launch(nil, start, exited)
}

// launch runs start through custom (or directly) on an OS thread locked
// until exited is closed: the kernel sends the parent-death signal when the
// thread that started the child ends, not the process, and a locked
// thread whose goroutine returns is ended (podshm's is, by design).
func launch(custom func(start func() error) error, start func() error, exited <-chan struct{}) error {
	if custom == nil {
		custom = func(start func() error) error { return start() }
	}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		// Never unlocked: once the child has exited the thread may end.
		ran := false
		err := custom(func() error {
			ran = true
			if err := start(); err != nil {
				return err
			}
			started <- nil
			<-exited
			return nil
		})
		if err == nil && !ran {
			err = errors.New("the launch returned without starting the process")
		}
		if err != nil {
			started <- err
		}
	}()
	return <-started
}

func openLog(path string) (*os.File, error) {
	if path == "" {
		return os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("creating log directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening log: %w", err)
	}
	return f, nil
}

// Name returns the Spec's name.
func (p *Process) Name() string { return p.name }

// PID returns the process ID, which is also its process group ID.
func (p *Process) PID() int { return p.t.pid }

// Done is closed when the process has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitError is nil while the process runs or after a clean exit, otherwise
// e.g. "argocd-repo-server exited: exit status 1".
func (p *Process) ExitError() error {
	select {
	case <-p.done:
		if p.waitErr != nil {
			return fmt.Errorf("%s exited: %w", p.name, p.waitErr)
		}
		return nil
	default:
		return nil
	}
}

// Stop sends SIGTERM to the whole process group, SIGKILL to the group if
// anything of it remains after grace, and waits until the process has exited
// and the group is empty. It is idempotent and fine after the process exited
// by itself (members it left behind are still stopped).
func (p *Process) Stop(grace time.Duration) error {
	p.stopMu.Lock()
	defer p.stopMu.Unlock()
	if _, err := stopTarget(p.t, grace, p.done); err != nil {
		return fmt.Errorf("stopping %s: %w", p.name, err)
	}
	return nil
}

// Tail returns the last n lines of the process's log file, for error messages.
func (p *Process) Tail(n int) string {
	if p.logPath == "" {
		return ""
	}
	s, err := tailFile(p.logPath, n)
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	return s
}

// tailFile reads backwards in chunks so a large log costs only its end; at
// most maxTail bytes are read, in case the end is one endless line.
func tailFile(path string, n int) (string, error) {
	if n <= 0 {
		return "", nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("opening log: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("reading log size: %w", err)
	}
	const chunk, maxTail = 8 << 10, 1 << 20
	var buf []byte
	for off := fi.Size(); off > 0 && len(buf) < maxTail; {
		size := min(int64(chunk), off)
		off -= size
		b := make([]byte, size)
		if _, err := f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("reading log: %w", err)
		}
		buf = append(b, buf...)
		// n lines need n newlines before them (ignoring a trailing one).
		if bytes.Count(bytes.TrimRight(buf, "\n"), []byte("\n")) >= n {
			break
		}
	}
	lines := strings.Split(strings.TrimRight(string(buf), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n"), nil
}
