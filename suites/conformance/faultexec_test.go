package conformance

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
)

func TestStoppedAfterReadsTheFirstHang(t *testing.T) {
	p := filepath.Join(t.TempDir(), "record")
	if _, err := stoppedAfter(p, time.Now()); err == nil {
		t.Error("no record: want an error")
	}
	now := time.Now()
	alive := func(at time.Time) string { return "alive " + strconv.FormatInt(at.UnixNano(), 10) + "\n" }
	os.WriteFile(p, []byte("started "+strconv.FormatInt(now.Add(-3*time.Second).UnixNano(), 10)+"\n"+alive(now.Add(-100*time.Millisecond))), 0o644)
	if _, err := stoppedAfter(p, now); err == nil || !strings.Contains(err.Error(), "still running") {
		t.Errorf("a hang still alive: err = %v", err)
	}
	os.WriteFile(p, []byte("pid 41\nstarted 1000000000\nalive 8000000000\nalive 16000000000\npid 42\nstarted 20000000000\nalive 21000000000\n"), 0o644)
	if d, err := stoppedAfter(p, now); err != nil || d != 15*time.Second {
		t.Errorf("stoppedAfter = %v, %v; want the first hang, 15s", d, err)
	}
	if start, last, err := hangSpan(p, now); err != nil || start != time.Unix(1, 0) || last != time.Unix(16, 0) {
		t.Errorf("hangSpan = %v, %v, %v; want 1s and 16s after the epoch", start, last, err)
	}
	if got := hangPIDs(p); len(got) != 2 || got[0] != 41 || got[1] != 42 || hangPID(p) != 41 {
		t.Errorf("hangPIDs = %v, want [41 42], the first 41", got)
	}
}

func TestPluginExecTimeout(t *testing.T) {
	if got := pluginExecTimeout(argocd.Plugin{}); got != 8*time.Second {
		t.Errorf("default = %v, want the environment's 8s", got)
	}
	if got := pluginExecTimeout(argocd.Plugin{Env: []string{"ARGOCD_EXEC_TIMEOUT=3s"}}); got != 3*time.Second {
		t.Errorf("from the plugin's env = %v, want 3s", got)
	}
	s := &Suite{}
	if s.RepoServerTimeout() <= pluginExecTimeout(argocd.Plugin{})+execSlack {
		t.Error("the environment's timeouts leave FAULT-005 unable to tell the bounds apart")
	}
	if d := faultExecTimeout.Deadline; d != 0 && d <= pluginExecTimeout(argocd.Plugin{})+execSlack {
		t.Errorf("FAULT-005's deadline %s could not be told from ARGOCD_EXEC_TIMEOUT and its slack", d)
	}
	s.deadline = 8 * time.Second
	if s.RepoServerTimeout() != 8*time.Second {
		t.Errorf("a check's own deadline: %s", s.RepoServerTimeout())
	}
}
