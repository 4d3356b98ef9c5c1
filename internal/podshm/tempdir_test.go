package podshm

import (
	"os"
	"strings"
	"testing"
)

func TestTempDirAvoidsDevShm(t *testing.T) {
	for tmpdir, want := range map[string]string{
		"/dev/shm": "/tmp", "/dev/shm/work": "/tmp", "/var/tmp": "/var/tmp", "/dev/shmx": "/dev/shmx",
	} {
		t.Setenv("TMPDIR", tmpdir)
		got, note := TempDir()
		if got != want || (note != "") != (want != tmpdir) {
			t.Errorf("TMPDIR=%s: got %q (note %q), want %q", tmpdir, got, note, want)
		}
	}
}

func TestMkdirTempSaysWhyNotUnderTMPDIR(t *testing.T) {
	t.Setenv("TMPDIR", "/dev/shm/work")
	var notes []string
	dir, err := MkdirTemp("cmpc-test-", func(why string) { notes = append(notes, why) })
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if !strings.HasPrefix(dir, "/tmp/cmpc-test-") || len(notes) != 1 {
		t.Errorf("got %s with notes %q, want a folder under /tmp and one note", dir, notes)
	}
}
