package parallel

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/fixtures/extension"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

func TestShareDealsWitnessesAndPoolsTheRest(t *testing.T) {
	var us []Unit
	for i, w := range []float64{45, 15, 15, 8, 8, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0} {
		us = append(us, Unit{Binding: "conformance", Check: string(rune('A' + i)), Weight: w})
	}
	for i, w := range []float64{30, 20, 10} {
		us = append(us, Unit{Binding: "broken/" + string(rune('a'+i)), Weight: w})
	}
	shares := Deal(us, 3)
	if len(shares) != 3 {
		t.Fatalf("%d shares", len(shares))
	}
	dealt := map[string]int{}
	for i, s := range shares {
		pooling := false
		for _, u := range s {
			switch {
			case u.Pooled:
				pooling = true
				if u.Binding != "conformance" || u.Weight == 0 {
					t.Errorf("share %d pools %+v", i, u)
				}
			case pooling && u.Weight > 0:
				t.Errorf("share %d lists its own %+v after the pool", i, u)
			default:
				dealt[u.Binding+"|"+u.Check]++
			}
		}
		if got := len(pooledUnits(s)); got != 13 {
			t.Errorf("share %d lists %d pooled units, want all 13 weighed checks", i, got)
		}
	}
	for k, n := range dealt {
		if n != 1 {
			t.Errorf("%s dealt %d times", k, n)
		}
	}
	if len(dealt) != 5 {
		t.Errorf("dealt %v: want the 3 witnesses and the 2 weightless checks, once each", dealt)
	}
	busy, ran := Plan(shares)
	if len(ran) != len(us) {
		t.Errorf("%d units ran, want %d", len(ran), len(us))
	}
	// 175 s of work: 58.3 s each at best; the 45 s check and a 30 s witness
	// on one environment are 75 s, and nothing makes it wait longer.
	if slices.Max(busy) > 75 || slices.Min(busy) < 45 {
		t.Errorf("busy %v", busy)
	}
	// Weightless units (filtered out) never make a share of their own, nor
	// does a small pool make idle environments.
	if got := Deal([]Unit{{Binding: "conformance", Check: "X", Weight: 1}, {Binding: "conformance", Check: "Y"}}, 3); len(got) != 1 || len(got[0]) != 2 {
		t.Errorf("weightless units: %v", got)
	}
	if got := Deal([]Unit{{Binding: "conformance", Check: "Y"}}, 3); len(got) != 0 {
		t.Errorf("only weightless units must make no share: %v", got)
	}
	if d := Describe(shares, false); !strings.Contains(d, "one queue (13 checks, ~115s)") || !strings.Contains(d, "witnesses of their own (0: ~30s, 1: ~20s, 2: ~10s)") {
		t.Errorf("Describe: %s", d)
	}
	if d := Describe(shares, false); !strings.Contains(d, "started at once") {
		t.Errorf("Describe of shares started at once: %s", d)
	}
	if d := Describe(shares, true); !strings.Contains(d, "each started once the one before it is up") {
		t.Errorf("Describe of staggered shares: %s", d)
	}
	if a, b := Deal(us, 3), Deal(us, 3); !slices.EqualFunc(a, b, slices.Equal) {
		t.Error("share is not deterministic")
	}
}

func TestUnitsWitnessesWholeAndPastDurations(t *testing.T) {
	checks := conformance.All()
	plain := conformance.Binding{Name: "conformance", Subjects: map[conformance.Role]conformance.Subject{conformance.RolePlain: {}}}
	witness := conformance.Binding{Name: "broken/x", Witness: true, Subjects: map[conformance.Role]conformance.Subject{conformance.RolePlain: {}}}
	all := func([]string) bool { return true }
	known := map[string]float64{Key("conformance", "SMOKE-001"): 42}
	us := Units([]conformance.Binding{plain, witness}, checks, all, known)
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
	got := Units([]conformance.Binding{plain, witness}, checks, helm, nil)
	if len(got) != conf {
		t.Errorf("%d units with the filter, want the %d conformance units", len(got), conf)
	}
	for _, u := range got {
		if u.Binding == "broken/x" || u.Weight != 0 {
			t.Errorf("with no selected check: %+v", u)
		}
	}
}

// A witness extension that gives the selected checks nothing to judge (no
// action tests for EXT-002) is no unit: it would record nothing, and a
// share that records nothing for a unit fails the run.
func TestUnitsSkipWhatAWitnessCannotBeJudgedOn(t *testing.T) {
	ext, err := extension.Load(filepath.Join("..", "..", "plugins", "broken", "extension-wrong-condition"))
	if err != nil {
		t.Fatal(err)
	}
	witness := conformance.Binding{Name: "broken/healthy-only", Witness: true,
		Subjects: map[conformance.Role]conformance.Subject{conformance.RoleExtension: {Role: conformance.RoleExtension, Extension: ext}}}
	only := func(id string) func([]string) bool { return func(l []string) bool { return slices.Contains(l, id) } }
	if got := Units([]conformance.Binding{witness}, conformance.All(), only("EXT-002"), nil); len(got) != 0 {
		t.Errorf("units %+v, want none: the witness has no action test", got)
	}
	if got := Units([]conformance.Binding{witness}, conformance.All(), only("EXT-001"), nil); len(got) != 1 || got[0].Weight == 0 {
		t.Errorf("units %+v, want the witness whole: it has health tests", got)
	}
}

func TestReadShareOrdersAndClaims(t *testing.T) {
	file := filepath.Join(t.TempDir(), "units.json")
	data, _ := json.Marshal([]Unit{{Binding: "broken/x"}, {Binding: "conformance", Check: "SMOKE-002", Pooled: true}, {Binding: "conformance", Check: "SMOKE-001", Pooled: true}})
	os.WriteFile(file, data, 0o644)
	sh, err := ReadShare(file)
	if err != nil {
		t.Fatal(err)
	}
	if !sh.Only("conformance", "SMOKE-001") || sh.Only("conformance", "PRUNE-001") || !sh.Only("broken/x", "PRUNE-001") {
		t.Error("filter wrong")
	}
	if b := sh.Bindings(); !b["conformance"] || !b["broken/x"] || len(b) != 2 {
		t.Errorf("bindings %v", b)
	}
	if q := sh.Queue(); len(q) != 1 || !slices.Equal(q["conformance"], []string{"SMOKE-002", "SMOKE-001"}) {
		t.Errorf("queue %v: want the pooled checks of the conformance binding, in the share's order", q)
	}
	// Two shares of one run claim from one folder: each pooled unit once,
	// their own units always.
	dir := t.TempDir()
	a, b := sh.Claimer(dir), sh.Claimer(dir)
	for _, c := range []struct {
		claim       func(string, string) (bool, error)
		binding, id string
		want        bool
	}{{a, "conformance", "SMOKE-002", true}, {b, "conformance", "SMOKE-002", false}, {b, "conformance", "SMOKE-001", true},
		{a, "conformance", "SMOKE-001", false}, {a, "broken/x", "PRUNE-001", true}, {b, "broken/x", "PRUNE-001", true}} {
		if got, err := c.claim(c.binding, c.id); got != c.want || err != nil {
			t.Errorf("claim %s %s: %v %v, want %v", c.binding, c.id, got, err, c.want)
		}
	}
	if _, err := sh.Claimer(filepath.Join(dir, "none", "such"))("conformance", "SMOKE-002"); err == nil {
		t.Error("a claim that cannot be written must be an error, not a skip")
	}
	if _, err := ReadShare(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("want an error for a missing file")
	}
}
