package proc

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// orphanEnv switches the test binary into a helper that starts a child and
// exits without stopping it, as a harness ended by `go test -timeout` does.
// Its value: "plain", "launch" (through a Launch that, like podshm, runs the
// start on a locked thread of its own) or "outlive" (Spec.Outlive).
const orphanEnv = "PROC_TEST_START_AND_DIE"

func startAndDie(mode string) {
	spec := Spec{Name: "orphan", Path: "/bin/sleep", Args: []string{"300"}, Outlive: mode == "outlive"}
	if mode == "launch" {
		spec.Launch = lockedLaunch
	}
	p, err := Start(spec)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	fmt.Println(p.PID())
	os.Exit(0) // no Stop, no deferred cleanup
}

// lockedLaunch is podshm.Shm.Start's pattern: start runs on a goroutine that
// locks its thread and never unlocks it, so the thread ends with the call.
func lockedLaunch(start func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		errc <- start()
	}()
	return <-errc
}

// orphanOf runs the helper in mode and returns the pid of the child it left.
func orphanOf(t *testing.T, mode string) int {
	t.Helper()
	out := helperOutput(t, orphanEnv, mode)
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("helper printed %q", out)
	}
	return pid
}

func TestChildDiesWithTheProcessThatStartedIt(t *testing.T) {
	for _, mode := range []string{"plain", "launch"} {
		t.Run(mode, func(t *testing.T) {
			pid := orphanOf(t, mode)
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			// The kernel sends the signal as the helper exits; allow for
			// its delivery on a loaded machine, checking every 10 ms.
			deadline := time.Now().Add(10 * time.Second)
			for running(pid) {
				if time.Now().After(deadline) {
					t.Fatalf("child %d still runs 10 s after the process that started it exited", pid)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

func TestOutliveKeepsTheChild(t *testing.T) {
	pid := orphanOf(t, "outlive")
	defer syscall.Kill(pid, syscall.SIGKILL)
	// The helper has been reaped (Output returned): a parent-death signal
	// would have been sent already.
	if !running(pid) {
		t.Fatalf("child %d with Outlive ended with the process that started it", pid)
	}
}

// A Launch whose thread ends with its call (podshm's) must not take the
// child with it: the child completes a handshake after Start returned.
func TestLaunchedChildOutlivesTheLaunchCall(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	spec := shSpec(t, "handshake", `cat "$FIFO"`, "FIFO="+fifo)
	spec.Launch = lockedLaunch
	p := startT(t, spec)
	opened := make(chan *os.File, 1)
	go func() {
		f, _ := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until the child reads
		opened <- f
	}()
	select {
	case f := <-opened:
		w := bufio.NewWriter(f)
		_, _ = w.WriteString("ok\n")
		_ = w.Flush()
		_ = f.Close()
	case <-p.Done():
		// Unblock the opener: nobody will read.
		if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			defer r.Close()
		}
		t.Fatalf("the child ended before the handshake: %v", p.ExitError())
	}
	select {
	case <-p.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the child did not exit after the handshake")
	}
	if err := p.ExitError(); err != nil {
		t.Fatalf("the child ended with %v, want a clean exit", err)
	}
}
