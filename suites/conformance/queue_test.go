package conformance

import (
	"context"
	"slices"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// TestQueuedTreeKeepsItsOrderAndRecordsOnlyItsClaims runs a Ginkgo tree as
// one environment of a parallel run does: checks in the queue's order (not
// Ginkgo's sort by text), a check another environment claimed skipped and
// never recorded, Done once every spec is accounted for. It is the only
// test of this package that runs Ginkgo.
func TestQueuedTreeKeepsItsOrderAndRecordsOnlyItsClaims(t *testing.T) {
	var ran, recorded []string
	check := func(id string) Check {
		return Check{ID: id, Title: "queued " + id, Area: Smoke, Level: Core,
			Test: func(context.Context, *Suite) { ran = append(ran, id) }}
	}
	done := 0
	err := Register(Config{
		Env:      func() *dsl.Env { return &dsl.Env{ArgoCDVersion: "v3.6.1"} },
		Bindings: []Binding{{Name: "conformance"}},
		Checks:   []Check{check("QUEUE-3"), check("QUEUE-1"), check("QUEUE-4"), check("QUEUE-2")},
		Claim: func(binding, id string) (bool, error) {
			return id != "QUEUE-4", nil // another environment took QUEUE-4
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
	if want := []string{"QUEUE-3", "QUEUE-1", "QUEUE-2"}; !slices.Equal(ran, want) {
		t.Errorf("ran %v, want %v: the queue's order, without the check claimed elsewhere", ran, want)
	}
	if want := []string{"QUEUE-3", "QUEUE-1", "QUEUE-2"}; !slices.Equal(recorded, want) {
		t.Errorf("recorded %v, want %v", recorded, want)
	}
	if done != 1 {
		t.Errorf("Done called %d times, want once", done)
	}
}
