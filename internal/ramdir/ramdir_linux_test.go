package ramdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// canMount skips a test where Mount cannot mount (not root, a kernel
// before 6.3, or no CAP_SYS_ADMIN, as in many CI containers).
func canMount(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	if release, ok := kernelAtLeast(6, 3); !ok {
		t.Skipf("Linux %s: Mount needs 6.3 or later", release)
	}
	dir := t.TempDir()
	if err := unix.Mount("cmpc-probe", dir, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("this process cannot mount a tmpfs: %v", err)
	}
	if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
		t.Fatal(err)
	}
}

func TestMountAndUnmount(t *testing.T) {
	canMount(t)
	dir := filepath.Join(t.TempDir(), "work")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if r := Mount(dir, Options{Size: 8 << 20}); r.Size != 8<<20 || r.Why != "" {
		t.Fatalf("Mount: %+v", r)
	}
	t.Cleanup(func() { _ = Unmount(dir) })
	if ok, err := mountedTmpfs(dir); !ok || err != nil {
		t.Fatalf("IsTmpfs after Mount: %v, %v", ok, err)
	}
	// A folder inside the tmpfs is not its mount point: never unmounted.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if ok, err := mountedTmpfs(sub); ok || err != nil {
		t.Fatalf("IsTmpfs of a folder inside: %v, %v", ok, err)
	}
	// The cap holds: 9 MiB do not fit in 8.
	err := os.WriteFile(filepath.Join(dir, "big"), make([]byte, 9<<20), 0o600)
	if err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("writing past the cap: %v", err)
	}
	if err := Unmount(dir); err != nil {
		t.Fatal(err)
	}
	if ok, err := mountedTmpfs(dir); ok || err != nil {
		t.Fatalf("IsTmpfs after Unmount: %v, %v", ok, err)
	}
	// What was written went with the tmpfs; the folder beneath is empty.
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Fatalf("after Unmount: %v, %v", entries, err)
	}
	// Nothing mounted: nothing to do.
	if err := Unmount(dir); err != nil {
		t.Fatal(err)
	}
	if err := Unmount(filepath.Join(dir, "missing")); err != nil {
		t.Fatal(err)
	}
}

func TestMountRefusesACapMemoryCannotHold(t *testing.T) {
	canMount(t) // the memory check comes after the root and kernel checks
	r := Mount(t.TempDir(), Options{Size: 1 << 60})
	if r.Size != 0 || !strings.Contains(r.Why, "less than twice the tmpfs's cap") {
		t.Fatalf("Mount of an exabyte tmpfs: %+v", r)
	}
}

func TestMemory(t *testing.T) {
	total, avail, err := memory()
	if err != nil || total <= 0 || avail <= 0 || avail > total {
		t.Fatalf("memory: %d %d %v", total, avail, err)
	}
}

func TestNote(t *testing.T) {
	if n := (Result{Size: 6 << 30}).Note("/tmp/x"); !strings.Contains(n, "tmpfs of 6 GiB") {
		t.Fatal(n)
	}
	if n := (Result{Why: "no root"}).Note("/tmp/x"); !strings.Contains(n, "on disk, not a tmpfs: no root") {
		t.Fatal(n)
	}
}

func TestDockerdSharesMounts(t *testing.T) {
	if os.Getenv("CMP_CONFORMANCE_REQUIRE_DOCKER") == "" {
		t.Skip("CMP_CONFORMANCE_REQUIRE_DOCKER is not set")
	}
	// This machine's dockerd runs beside the tests, in their namespace.
	if why := dockerdSharesMounts(); why != "" {
		t.Fatal(why)
	}
}

func TestReleaseAtLeast(t *testing.T) {
	for release, want := range map[string]bool{
		"6.18.44-fc-v669": true, "6.3.0": true, "7.0": true, "6.2.16-arch1": false, "5.15.0-91-generic": false, "6": false, "x.y": false,
	} {
		if got := releaseAtLeast(release, 6, 3); got != want {
			t.Errorf("releaseAtLeast(%q, 6, 3) = %v", release, got)
		}
	}
}
