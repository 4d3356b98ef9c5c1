package conformance

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
)

func TestSpanOfReadsTheFirstHang(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	sc := argocd.HostScratch{Plugin: dir, Host: dir}
	if _, _, err := spanOf(ctx, sc, "record"); err == nil {
		t.Error("no record: want an error")
	}
	if _, _, err := spanOf(ctx, sc, "../record"); err == nil {
		t.Error("a name out of the folder: want an error")
	}
	now := time.Now()
	alive := func(at time.Time) string { return "alive " + strconv.FormatInt(at.UnixNano(), 10) + "\n" }
	started := "started " + strconv.FormatInt(now.Add(-3*time.Second).UnixNano(), 10) + "\n"
	os.WriteFile(filepath.Join(dir, "record"), []byte(started+alive(now.Add(-100*time.Millisecond))), 0o644)
	if _, _, err := spanOf(ctx, sc, "record"); err == nil || !strings.Contains(err.Error(), "still running") {
		t.Errorf("a hang still alive: err = %v", err)
	}
	// Judged at the moment the record was read, on the writer's clock: a
	// record read 100 ms after its last line is still running, however
	// late this host looks at it.
	data := []byte(started + alive(now.Add(-1500*time.Millisecond)))
	if _, _, err := hangSpan(data, now.Add(-1400*time.Millisecond)); err == nil {
		t.Error("a record read 100 ms after its last line: want still running")
	}
	if _, _, err := hangSpan(data, now); err != nil {
		t.Errorf("a record read 1.5 s after its last line: %v, want over", err)
	}
	data = []byte("pid 41\nstarted 1000000000\nalive 8000000000\nalive 16000000000\npid 42\nstarted 20000000000\nalive 21000000000\n")
	if start, last, err := hangSpan(data, now); err != nil || start != time.Unix(1, 0) || last != time.Unix(16, 0) {
		t.Errorf("hangSpan = %v, %v, %v; want the first hang, 1s and 16s after the epoch", start, last, err)
	}
	os.WriteFile(filepath.Join(dir, "record"), data, 0o644)
	if got := hangPIDs(data); len(got) != 2 || got[0] != 41 || got[1] != 42 || hangPID(ctx, sc, "record") != 41 {
		t.Errorf("hangPIDs = %v, want [41 42], the first 41", got)
	}
	// A link the plugin left where its record should be is not followed.
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("started 1\nalive 2\n"), 0o600)
	os.Symlink(secret, filepath.Join(dir, "linked"))
	if data, _, err := sc.Read(ctx, "linked"); err == nil || len(data) > 0 {
		t.Errorf("a record that is a link: %q, %v; want it refused", data, err)
	}
	if err := sc.Remove(ctx, "record"); err != nil {
		t.Fatal(err)
	}
	if err := sc.Remove(ctx, "record"); err != nil {
		t.Errorf("removing what is gone: %v", err)
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
