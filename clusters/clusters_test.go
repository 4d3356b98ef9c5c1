package clusters

import (
	"context"
	"errors"
	"testing"
)

// Settle waits for what Create left under way once: its steps are added
// once, its error said, and a second call has nothing left to wait for.
func TestSettleWaitsOnce(t *testing.T) {
	calls := 0
	boom := errors.New("nodes not added")
	c := &Cluster{Steps: []Step{{Name: "answering", Seconds: 1}}, Settling: func(context.Context) ([]Step, error) {
		calls++
		return []Step{{Name: "healthy", Seconds: 2}}, boom
	}}
	if err := c.Settle(context.Background()); !errors.Is(err, boom) {
		t.Fatalf("Settle = %v, want %v", err, boom)
	}
	if err := c.Settle(context.Background()); err != nil || calls != 1 {
		t.Fatalf("second Settle = %v after %d calls, want nil after 1", err, calls)
	}
	if len(c.Steps) != 2 || c.Steps[1].Name != "healthy" {
		t.Fatalf("Steps = %+v, want answering then healthy", c.Steps)
	}
	if err := (&Cluster{}).Settle(context.Background()); err != nil {
		t.Fatalf("a cluster with nothing under way: %v", err)
	}
}
