package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

func TestShareBalancesAndKeepsEveryUnitOnce(t *testing.T) {
	var us []unit
	for i, w := range []float64{45, 15, 15, 8, 8, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0} {
		us = append(us, unit{Binding: "b", Check: string(rune('A' + i)), Weight: w})
	}
	shares := share(us, 3)
	if len(shares) != 3 {
		t.Fatalf("%d shares", len(shares))
	}
	seen := map[string]int{}
	var loads []float64
	for _, s := range shares {
		var load float64
		for _, u := range s {
			seen[u.Check]++
			load += u.Weight
		}
		loads = append(loads, load)
	}
	if len(seen) != len(us) {
		t.Fatalf("units lost or added: %v", seen)
	}
	for c, n := range seen {
		if n != 1 {
			t.Errorf("unit %s in %d shares", c, n)
		}
	}
	// The 45 s unit alone outweighs a third of the 115 s: its share takes
	// nothing else, the others split the rest.
	if slices.Max(loads) != 45 || slices.Min(loads) < 30 {
		t.Errorf("loads %v", loads)
	}
	// Weightless units (filtered out) never make a share of their own.
	if got := share([]unit{{Binding: "b", Check: "X", Weight: 1}, {Binding: "b", Check: "Y"}}, 3); len(got) != 1 || len(got[0]) != 2 {
		t.Errorf("weightless units: %v", got)
	}
	if got := share([]unit{{Binding: "b", Check: "Y"}}, 3); len(got) != 0 {
		t.Errorf("only weightless units must make no share: %v", got)
	}
	if a, b := share(us, 3), share(us, 3); !slices.EqualFunc(a, b, slices.Equal) {
		t.Error("share is not deterministic")
	}
}

func TestUnitsWitnessesWholeAndPastDurations(t *testing.T) {
	checks := conformance.All()
	plain := conformance.Binding{Name: "conformance", Subjects: map[conformance.Role]conformance.Subject{conformance.RolePlain: {}}}
	witness := conformance.Binding{Name: "broken/x", Witness: true, Subjects: map[conformance.Role]conformance.Subject{conformance.RolePlain: {}}}
	all := func([]string) bool { return true }
	known := map[string]float64{specKey("conformance", "SMOKE-001"): 42}
	us := units([]conformance.Binding{plain, witness}, checks, all, known)
	var conf, wit int
	for _, u := range us {
		switch {
		case u.Binding == "broken/x" && u.Check == "":
			wit++
		case u.Binding == "conformance":
			conf++
			if u.Check == "SMOKE-001" && u.Weight != 42+specOverhead {
				t.Errorf("SMOKE-001 weight %v, want the previous report's 42 and the overhead", u.Weight)
			}
		default:
			t.Errorf("unexpected unit %+v", u)
		}
	}
	if wit != 1 || conf == 0 {
		t.Fatalf("witness units %d (want 1 whole binding), conformance units %d", wit, conf)
	}
	// A filter keeps unselected conformance checks (weightless, to be
	// recorded as not selected) and drops the witness's.
	helm := func(l []string) bool { return slices.Contains(l, "helm") }
	got := units([]conformance.Binding{plain, witness}, checks, helm, nil)
	if len(got) != conf {
		t.Errorf("%d units with the filter, want the %d conformance units", len(got), conf)
	}
	for _, u := range got {
		if u.Binding == "broken/x" || u.Weight != 0 {
			t.Errorf("with no selected check: %+v", u)
		}
	}
}

func TestOnlyUnits(t *testing.T) {
	file := filepath.Join(t.TempDir(), "units.json")
	data, _ := json.Marshal([]unit{{Binding: "conformance", Check: "SMOKE-001"}, {Binding: "broken/x"}})
	os.WriteFile(file, data, 0o644)
	only, bindings, err := onlyUnits(file)
	if err != nil {
		t.Fatal(err)
	}
	if !only("conformance", "SMOKE-001") || only("conformance", "SMOKE-002") || !only("broken/x", "PRUNE-001") {
		t.Error("filter wrong")
	}
	if !bindings["conformance"] || !bindings["broken/x"] || len(bindings) != 2 {
		t.Errorf("bindings %v", bindings)
	}
	if _, _, err := onlyUnits(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("want an error for a missing file")
	}
}

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
	args := strings.Join(childArgs(f, "v3.6.1", "/o", "/o/units.json", "/out/bin", 18180), " ")
	for _, want := range []string{"run --parallel 1 ", "--plugin-bin /out/bin", "--argocd-version v3.6.1", "--units /o/units.json", "--port-base 18180", "--self-test", "--plugin plain=/p", "--label-filter smoke"} {
		if !strings.Contains(args, want) {
			t.Errorf("child args %q lack %q", args, want)
		}
	}
}
