// Package parallel shares a catalogue run out to several environments run
// side by side, each a child process with its own cluster, Argo CD, plugins
// and ports, and merges what they record into one report. Checks mostly
// wait on Argo CD (reconciliation, refreshes, timeouts), so even 2 cores
// run several environments well.
package parallel

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"

	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// Unit is what a share is made of: one check of the conformance binding, or
// a whole witness binding (its checks need its plugins; keeping them
// together keeps the plugins a share starts few).
type Unit struct {
	Binding string `json:"binding"`
	// Check is "" for every check of the binding.
	Check  string  `json:"check,omitempty"`
	Weight float64 `json:"-"`
	// Pooled: every share lists the unit, and the first to begin it runs it.
	Pooled bool `json:"pooled,omitempty"`
}

// Stride spaces the port ranges of the shares: a run takes its base
// plus 0..8, the plugin services from base+10 (argocd.PortsFrom), a few per
// service plugin.
const Stride = 100

// Units lists the catalogue's units for these bindings, of the checks the
// label filter selects, each weighted by what its specs are expected to
// cost: the seconds known for them (past reports, else the reference
// timings), else typical ones, plus the overhead of a spec.
func Units(bindings []conformance.Binding, checks []conformance.Check, selected func([]string) bool, known map[string]float64) []Unit {
	weight := func(binding string, c conformance.Check) float64 {
		if s, ok := known[Key(binding, c.ID)]; ok {
			return s + specOverhead
		}
		return typicalSeconds(c) + specOverhead
	}
	var out []Unit
	for _, b := range bindings {
		var whole Unit
		for _, c := range checks {
			if c.Area == conformance.Upgrade || !b.Has(c) {
				continue
			}
			switch {
			case b.Witness && selected(c.Labels()) && b.NothingToJudge(c) == "":
				whole.Weight += weight(b.Name, c)
			case b.Witness:
				// An unselected witness check records nothing, nor one
				// its extension gives nothing to judge (not applicable).
			case selected(c.Labels()):
				out = append(out, Unit{Binding: b.Name, Check: c.ID, Weight: weight(b.Name, c)})
			default:
				// Recorded as not selected by the filter, at no cost.
				out = append(out, Unit{Binding: b.Name, Check: c.ID})
			}
		}
		if b.Witness && whole.Weight > 0 {
			whole.Binding = b.Name
			out = append(out, whole)
		}
	}
	return out
}

// typicalSeconds is a check's duration when no report says better
// (measured on v3.6.1, embedded runtime, 3 environments on 2 cores,
// 2026-11-27): the hang checks wait out their short deadline two or three
// times, SVC-010 a deadline where Argo CD diverges, FAULT-004 three renders
// over its plugin's gRPC limit, DISC-009 a hang, CACHE-001 refreshes until
// the cache answers.
func typicalSeconds(c conformance.Check) float64 {
	switch c.ID {
	case "FAULT-001", "FAULT-005", "SVC-010":
		return 19
	case "SVC-008", "DISC-009":
		return 12
	case "HELM-001":
		return 7
	case "CACHE-001":
		return 6
	case "SMOKE-002", "HELM-004", "SVC-006", "SVC-007", "FAULT-004":
		return 5
	}
	if c.Area == conformance.Pruning {
		return 5
	}
	return 2
}

// specOverhead is what a spec costs beyond its check's own duration
// (creating and deleting its applications, waiting for them to go).
const specOverhead = 1.5

// Deal deals units out to at most n environments. A unit of a witness
// binding needs the witness's own plugins, so it stays where it is dealt:
// longest first, each to the lightest share (deterministic: ties go to the
// lower share). A check of a binding every environment starts (the
// conformance one) is pooled: every share lists it, and the environment
// that begins it first claims it (Share.Claimer), so that no environment idles
// while another still has a queue. Each share lists its own units first and
// then the pool, both longest first, so that the pool fills what the dealt
// units leave uneven. Weightless units (checks the filter leaves out, only
// recorded) go to the first share; they never make an environment of their
// own.
func Deal(us []Unit, n int) [][]Unit {
	sorted := slices.Clone(us)
	slices.SortStableFunc(sorted, func(a, b Unit) int { return cmp.Compare(b.Weight, a.Weight) })
	var dealt, pool, weightless []Unit
	for _, u := range sorted {
		switch {
		case u.Weight == 0:
			weightless = append(weightless, u)
		case poolable(u):
			u.Pooled = true
			pool = append(pool, u)
		default:
			dealt = append(dealt, u)
		}
	}
	n = min(n, len(dealt)+len(pool))
	shares := make([][]Unit, n)
	load := make([]float64, n)
	for _, u := range dealt {
		i := 0
		for j := range load {
			if load[j] < load[i] {
				i = j
			}
		}
		shares[i] = append(shares[i], u)
		load[i] += u.Weight
	}
	for i := range shares {
		shares[i] = append(shares[i], pool...)
	}
	if n > 0 {
		shares[0] = append(shares[0], weightless...)
	}
	return slices.DeleteFunc(shares, func(s []Unit) bool { return len(s) == 0 })
}

// Plan plays a parallel run of shares by their weights: each environment
// runs its own units, then takes the next unclaimed unit of the pool the
// moment it is free (ties to the lower share). It returns each
// environment's expected busy time, and which share (from 1) runs each
// unit, by Key.
func Plan(shares [][]Unit) ([]float64, map[string]int) {
	busy := make([]float64, len(shares))
	ran := map[string]int{}
	next := make([]int, len(shares))
	for {
		i := -1
		for j, s := range shares {
			for next[j] < len(s) && s[next[j]].Pooled && ran[Key(s[next[j]].Binding, s[next[j]].Check)] > 0 {
				next[j]++ // taken by another
			}
			if next[j] < len(s) && (i < 0 || busy[j] < busy[i]) {
				i = j
			}
		}
		if i < 0 {
			return busy, ran
		}
		u := shares[i][next[i]]
		next[i]++
		ran[Key(u.Binding, u.Check)] = i + 1
		busy[i] += u.Weight
	}
}

// poolable says whether any environment can run u: a single check of the
// main binding (the catalogue's, or a certification's subject), whose
// plugins every environment starts. A witness is always a whole unit.
func poolable(u Unit) bool { return u.Check != "" }

// Share is what a child reads from its --units file.
type Share struct {
	Units []Unit
	keep  map[string]bool
}

// ReadShare reads a child's --units file.
func ReadShare(file string) (*Share, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--units: %w", err)
	}
	var us []Unit
	if err := json.Unmarshal(data, &us); err != nil {
		return nil, fmt.Errorf("--units %s: %w", file, err)
	}
	sh := &Share{Units: us, keep: map[string]bool{}}
	for _, u := range us {
		sh.keep[u.Binding+"|"+u.Check] = true
	}
	return sh, nil
}

// Only is conformance.Config.Only for the share.
func (sh *Share) Only(b, c string) bool { return sh.keep[b+"|"+c] || sh.keep[b+"|"] }

// Bindings names the bindings the share needs.
func (sh *Share) Bindings() map[string]bool {
	out := map[string]bool{}
	for _, u := range sh.Units {
		out[u.Binding] = true
	}
	return out
}

// Queue is conformance.Config.Queue for the share: for each binding whose
// checks are pooled, their IDs in the share's order (longest first). Only
// those bindings are run in an order of the share's: a witness keeps the
// order it always ran in, since a witness's checks may depend on it (one
// whose bridge gives up for good fails every check after the one that
// stops its service).
func (sh *Share) Queue() map[string][]string {
	out := map[string][]string{}
	for _, u := range sh.Units {
		if u.Pooled {
			out[u.Binding] = append(out[u.Binding], u.Check)
		}
	}
	return out
}

// Claimer is conformance.Config.Claim for a share: a pooled unit is the
// share's when it creates the unit's folder under dir first (one atomic
// mkdir on a folder all shares see); its own units are always its own.
func (sh *Share) Claimer(dir string) func(binding, check string) (bool, error) {
	pooled := map[string]bool{}
	for _, u := range sh.Units {
		if u.Pooled {
			pooled[Key(u.Binding, u.Check)] = true
		}
	}
	return func(binding, check string) (bool, error) {
		key := Key(binding, check)
		if !pooled[key] {
			return true, nil
		}
		err := os.Mkdir(filepath.Join(dir, url.PathEscape(key)), 0o755)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, fs.ErrExist):
			return false, nil
		}
		return false, err
	}
}
