package portrange

import (
	"fmt"
	"net"
	"strings"
	"testing"
)

// freeBase finds a base whose next 100 ports are free now, below the
// kernel's ephemeral range: a base near a port the kernel gave (as it was)
// shares its ports with the connections of the packages go test runs beside
// this one, and a range the test means free was taken by one of them.
func freeBase(t *testing.T) int {
	t.Helper()
	for base := 30100; base < 32000; base += 100 {
		free := true
		for p := base; p < base+100 && free; p++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				free = false
				continue
			}
			l.Close()
		}
		if free {
			return base
		}
	}
	t.Skip("no free range of 100 ports from 30100 to 32000")
	return 0
}

func TestTakeSkipsHeldAndBusyRanges(t *testing.T) {
	dir, base := t.TempDir(), freeBase(t)
	a, err := Take(dir, base, 10, 20, 5)
	if err != nil {
		t.Fatal(err)
	}
	if a.Base != base {
		t.Fatalf("first claim at %d, want %d", a.Base, base)
	}
	b, err := Take(dir, base, 10, 20, 5)
	if err != nil {
		t.Fatal(err)
	}
	if b.Base != base+20 {
		t.Errorf("second claim at %d, want the next range %d (the first is held)", b.Base, base+20)
	}
	// A port of the third range in use by anything: that range is skipped.
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+43))
	if err != nil {
		t.Skip("a port of the test's range is taken:", err)
	}
	defer l.Close()
	c, err := Take(dir, base, 10, 20, 5)
	if err != nil {
		t.Fatal(err)
	}
	if c.Base != base+60 {
		t.Errorf("third claim at %d, want %d (a port of %d..%d is in use)", c.Base, base+60, base+40, base+49)
	}
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	d, err := Take(dir, base, 10, 20, 5)
	if err != nil {
		t.Fatal(err)
	}
	if d.Base != base {
		t.Errorf("after release a claim at %d, want the freed %d", d.Base, base)
	}
	for _, cl := range []*Claim{b, c, d} {
		cl.Release()
	}
}

func TestTakeSaysWhyNoneIsFree(t *testing.T) {
	dir, base := t.TempDir(), freeBase(t)
	held, err := Take(dir, base, 10, 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	_, err = Take(dir, base, 10, 20, 1)
	if err == nil || !strings.Contains(err.Error(), "held by another run") || !strings.Contains(err.Error(), "PortBase") {
		t.Errorf("every range held: %v, want an error naming the held range and PortBase", err)
	}
}
