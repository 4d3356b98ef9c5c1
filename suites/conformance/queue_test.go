package conformance

import (
	"context"
	"slices"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// TestQueuedTreeKeepsItsOrderAndRecordsOnlyItsClaims runs a Ginkgo tree as
// one environment of a parallel run does: the queued binding's checks in
// the queue's order (not Ginkgo's sort by text), a witness's in the order
// it always ran in, a check another environment claimed skipped and never
// recorded, Done once every spec is accounted for. It is the only
// test of this package that runs Ginkgo.
func TestQueuedTreeKeepsItsOrderAndRecordsOnlyItsClaims(t *testing.T) {
	var ran, recorded []string
	check := func(id string) Check {
		return Check{ID: id, Title: "queued " + id, Area: Smoke, Level: Core,
			Test: func(_ context.Context, s *Suite) { ran = append(ran, s.binding.Name+" "+id) }}
	}
	done := 0
	err := Register(Config{
		Env:      func() *dsl.Env { return &dsl.Env{ArgoCDVersion: "v3.6.1"} },
		Bindings: []Binding{{Name: "conformance"}, {Name: "broken/w", Witness: true}},
		Checks:   []Check{check("QUEUE-5"), check("QUEUE-1"), check("QUEUE-2"), check("QUEUE-3"), check("QUEUE-4")},
		Queue:    map[string][]string{"conformance": {"QUEUE-3", "QUEUE-1", "QUEUE-4"}},
		Claim: func(binding, id string) (bool, error) {
			return binding != "conformance" || id != "QUEUE-4", nil // another environment took QUEUE-4
		},
		Record: func(r v1alpha1.Result) { recorded = append(recorded, r.ID) },
		Done:   func() { done++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	if !Run(RunOptions{}) {
		t.Fatal("the suite failed")
	}
	// The witness first (Ginkgo's order of containers), its checks in
	// Ginkgo's order by text; then the queue's, then the rest of the
	// conformance binding's in Checks' order.
	want := []string{"broken/w QUEUE-1", "broken/w QUEUE-2", "broken/w QUEUE-3", "broken/w QUEUE-4", "broken/w QUEUE-5",
		"conformance QUEUE-3", "conformance QUEUE-1", "conformance QUEUE-5", "conformance QUEUE-2"}
	if !slices.Equal(ran, want) {
		t.Errorf("ran %v, want %v", ran, want)
	}
	if want := []string{"QUEUE-3", "QUEUE-1", "QUEUE-5", "QUEUE-2"}; !slices.Equal(recorded, want) {
		t.Errorf("recorded %v, want %v", recorded, want)
	}
	if done != 1 {
		t.Errorf("Done called %d times, want once", done)
	}
}
