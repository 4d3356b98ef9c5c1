package privatetmp

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A process started in Tmp sees an empty /tmp with the kept folder and the
// bound one, and nothing it writes there reaches the host's /tmp.
func TestStartGivesAPrivateTmp(t *testing.T) {
	run, err := os.MkdirTemp("/tmp", "cmpc-privatetmp-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(run)
	src := filepath.Join(run, "ui")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "extension.js"), []byte("ok"), 0o644); err != nil {
		t.Fatal(err)
	}
	hostOnly, err := os.CreateTemp("/tmp", "cmpc-privatetmp-host-")
	if err != nil {
		t.Fatal(err)
	}
	hostOnly.Close()
	defer os.Remove(hostOnly.Name())
	leak := "/tmp/cmpc-privatetmp-leak"
	os.Remove(leak)

	script := strings.Join([]string{
		"cat /tmp/extensions/extension.js",
		"test -d " + run + " && echo kept",
		"test -e " + hostOnly.Name() + " && echo host-visible",
		"touch " + leak,
	}, "; ")
	cmd := exec.Command("sh", "-c", script)
	var out strings.Builder
	cmd.Stdout = &out
	tmp := Tmp{Keep: []string{run}, Bind: map[string]string{"/tmp/extensions": src}}
	err = tmp.Start(cmd.Start)
	if errors.Is(err, ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "okkept\n" {
		t.Errorf("the process saw %q, want the bound file and the kept folder only", got)
	}
	if _, err := os.Stat(leak); err == nil {
		os.Remove(leak)
		t.Error("a file written to the private /tmp reached the host's")
	}
}

func TestStartRefusesTargetsOutsideTmp(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root")
	}
	err := Tmp{Bind: map[string]string{"/etc/x": "/tmp"}}.Start(func() error { return nil })
	if err == nil || !strings.Contains(err.Error(), "not a path under /tmp") {
		t.Fatalf("got %v", err)
	}
}
