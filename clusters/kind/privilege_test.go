package kind

import (
	"slices"
	"strings"
	"testing"
)

func TestPrivilegeOf(t *testing.T) {
	// Measured on this kind of machine: everything up to
	// CAP_CHECKPOINT_RESTORE (40) but CAP_SYS_RESOURCE (24).
	p := PrivilegeOf(0x000001fffeffffff, 40)
	if p.Privileged() || !slices.Equal(p.Missing, []string{"CAP_SYS_RESOURCE"}) {
		t.Fatalf("missing = %v, want CAP_SYS_RESOURCE alone", p.Missing)
	}
	for _, want := range []string{"--cap-add=ALL", "--cap-drop=SYS_RESOURCE", "systempaths=unconfined", "/dev/kmsg"} {
		if !slices.Contains(p.Flags, want) {
			t.Errorf("flags %v lack %s", p.Flags, want)
		}
	}
	if !strings.Contains(p.Explain(), "CAP_SYS_RESOURCE") {
		t.Errorf("explain = %q", p.Explain())
	}
	if full := PrivilegeOf(0x000001ffffffffff, 40); !full.Privileged() || full.Flags != nil {
		t.Errorf("a complete set: %+v", full)
	}
	// Bits above the kernel's last capability do not count; a missing
	// capability the table does not name is still named.
	if p := PrivilegeOf(0xffffffffffffffff&^(1<<41), 41); !slices.Equal(p.Missing, []string{"CAP_41"}) {
		t.Errorf("missing = %v", p.Missing)
	}
	if p := PrivilegeOf(0x3f, 5); !p.Privileged() {
		t.Errorf("an old kernel's complete set: %+v", p)
	}
}

func TestHostPrivilegeReads(t *testing.T) {
	p, err := HostPrivilege()
	if err != nil {
		t.Fatal(err)
	}
	t.Log(p.Explain())
}
