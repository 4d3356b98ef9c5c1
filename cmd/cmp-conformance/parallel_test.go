package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/cmp-conformance/cmp-conformance/plugins"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
	"github.com/cmp-conformance/cmp-conformance/suites/parallel"
)

func TestParallelUsage(t *testing.T) {
	for _, tt := range []struct {
		f    runFlags
		want string
	}{
		{runFlags{parallel: 0}, "give 1"},
		{runFlags{parallel: 2, upgradePath: "legacy"}, "--upgrade-path"},
		{runFlags{parallel: 2, units: "x"}, "--units"},
		{runFlags{parallel: 4, envFlags: envFlags{portBase: 65300}}, "ports up to 65699"},
	} {
		tt.f.runtime = "embedded"
		if err := tt.f.parallelUsage(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.f, err, tt.want)
		}
	}
	f := runFlags{parallel: 2}
	f.runtime = "kind"
	if err := f.parallelUsage(); err == nil {
		t.Error("kind with --parallel 2 must be refused")
	}
	f.runtime = "embedded"
	if err := f.parallelUsage(); err != nil {
		t.Error(err)
	}
}

func TestChildArgsNeverRecurse(t *testing.T) {
	f := &runFlags{selfTest: true, labelFilter: "smoke", parallel: 3}
	f.runtime, f.plugins = "embedded", []string{"plain=/p"}
	args := strings.Join(childArgs(f, "v3.6.1", "/o", "/o/units.json", "/o/claims", "/out/bin", 18180), " ")
	for _, want := range []string{"run --parallel 1 ", "--plugin-bin /out/bin", "--argocd-version v3.6.1", "--units /o/units.json", "--claims /o/claims", "--port-base 18180", "--self-test", "--plugin plain=/p", "--label-filter smoke"} {
		if !strings.Contains(args, want) {
			t.Errorf("child args %q lack %q", args, want)
		}
	}
}

// A share of a certification is certify again, with the subject as given
// and none of the catalogue's role flags (certify refuses them).
func TestChildArgsOfACertification(t *testing.T) {
	f := &runFlags{selfTest: true, parallel: 3}
	f.runtime, f.certify = "embedded", &certifySubject{image: "mine:1", samples: "my/certify.yaml", entrypoint: "image"}
	args := strings.Join(childArgs(f, "v3.6.1", "/o", "/o/units.json", "/o/claims", "/out/bin", 18180), " ")
	for _, want := range []string{"certify --parallel 1 ", "--image mine:1", "--samples my/certify.yaml", "--entrypoint image", "--self-test", "--plugin-bin /out/bin"} {
		if !strings.Contains(args, want) {
			t.Errorf("child args %q lack %q", args, want)
		}
	}
	for _, not := range []string{"--plugin ", "--plugin-image", "--config", "--plugin-dir"} {
		if strings.Contains(args, not) {
			t.Errorf("child args %q hold %q", args, not)
		}
	}
}

// TestShareRealCatalogue shares out the checkout's own self-test: every
// spec lands in exactly one share, the shares are deterministic and
// balanced (longest first is within 4/3 of the best possible).
func TestShareRealCatalogue(t *testing.T) {
	plan, err := plugins.CataloguePlan(checkoutRoot(t), nil, true, plugins.ProfileCatalogue)
	if err != nil {
		t.Fatal(err)
	}
	all, _ := types.ParseLabelFilter("")
	us := parallel.Units(plan.Bindings, nil, all, parallel.DefaultTimings())
	if len(us) != 0 {
		t.Fatalf("no checks, yet %d units", len(us))
	}
	checks := conformance.All()
	us = parallel.Units(plan.Bindings, checks, all, parallel.DefaultTimings())
	var total, biggest float64
	for _, u := range us {
		total += u.Weight
		biggest = max(biggest, u.Weight)
	}
	for _, n := range []int{1, 2, 3, 4, 40} {
		shares := parallel.Deal(us, n)
		if again := parallel.Deal(us, n); !slices.EqualFunc(shares, again, slices.Equal) {
			t.Errorf("n=%d: not deterministic", n)
		}
		busy, ran := parallel.Plan(shares)
		if len(ran) != len(us) {
			t.Errorf("n=%d: %d units ran, want %d", n, len(ran), len(us))
		}
		if n <= len(us) && len(shares) != n {
			t.Errorf("n=%d: %d shares", n, len(shares))
		}
		if best := max(total/float64(len(shares)), biggest); slices.Max(busy) > best*9/8 {
			t.Errorf("n=%d: busy %v, best possible max %.0f", n, busy, best)
		}
	}
	// Each witness is one unit, each conformance check another.
	witnesses, conformanceChecks := 0, 0
	for _, b := range plan.Bindings {
		if b.Witness {
			witnesses++
		}
	}
	for _, u := range us {
		if u.Binding == "conformance" {
			conformanceChecks++
		}
	}
	if len(us) != witnesses+conformanceChecks || witnesses < 20 || conformanceChecks < 40 {
		t.Errorf("%d units: %d witnesses, %d conformance checks", len(us), witnesses, conformanceChecks)
	}
}
