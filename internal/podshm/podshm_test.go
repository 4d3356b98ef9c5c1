package podshm

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A process started through Shm writes its /dev/shm file into Dir, owned
// on disk by UID with the mode it asked for, and the host's /dev/shm does
// not get it.
func TestStartSharesDevShm(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shm")
	s, err := Open(dir, 999)
	if errors.Is(err, ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	name := "cmpc-test-" + filepath.Base(t.TempDir())
	var out strings.Builder
	cmd := exec.Command("/bin/sh", "-c", "umask 077 && echo key > /dev/shm/"+name+" && ls -ln /dev/shm/"+name)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := s.Start(cmd.Start); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	// Inside, the file is root's, as the repo-server sees its own.
	if !strings.Contains(out.String(), " 0 0 ") {
		t.Errorf("inside the namespace: %s, want the file root's", out.String())
	}
	st, err := os.Stat(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("not in the shared folder: %v", err)
	}
	if sys := st.Sys().(*syscall.Stat_t); sys.Uid != 999 || st.Mode().Perm() != 0o600 {
		t.Errorf("on disk: uid %d mode %v, want 999 and 0600", sys.Uid, st.Mode().Perm())
	}
	if _, err := os.Stat(filepath.Join("/dev/shm", name)); err == nil {
		t.Errorf("the host's /dev/shm got %s", name)
	}
}
