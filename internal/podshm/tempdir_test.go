package podshm

import "testing"

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
