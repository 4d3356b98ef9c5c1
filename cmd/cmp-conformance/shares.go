package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// unit is what a share is made of: one check of the conformance binding, or
// a whole witness binding (its checks need its plugins; keeping them
// together keeps the plugins a share starts few).
type unit struct {
	Binding string `json:"binding"`
	// Check is "" for every check of the binding.
	Check  string  `json:"check,omitempty"`
	Weight float64 `json:"-"`
}

// shareStride spaces the port ranges of the shares: a run takes its base
// plus 0..8, the plugin services from base+10 (argocd.PortsFrom), a few per
// service plugin.
const shareStride = 100

// units lists the catalogue's units for these bindings, of the checks the
// label filter selects, each weighted by what its specs are expected to
// cost: the seconds known for them (past reports, else the reference
// timings), else typical ones, plus the overhead of a spec.
func units(bindings []conformance.Binding, checks []conformance.Check, selected func([]string) bool, known map[string]float64) []unit {
	weight := func(binding string, c conformance.Check) float64 {
		if s, ok := known[specKey(binding, c.ID)]; ok {
			return s + specOverhead
		}
		return typicalSeconds(c) + specOverhead
	}
	var out []unit
	for _, b := range bindings {
		var whole unit
		for _, c := range checks {
			if c.Area == conformance.Upgrade || !b.Has(c) {
				continue
			}
			switch {
			case b.Witness && selected(c.Labels()):
				whole.Weight += weight(b.Name, c)
			case b.Witness:
				// An unselected witness check records nothing.
			case selected(c.Labels()):
				out = append(out, unit{Binding: b.Name, Check: c.ID, Weight: weight(b.Name, c)})
			default:
				// Recorded as not selected by the filter, at no cost.
				out = append(out, unit{Binding: b.Name, Check: c.ID})
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
// (measured on v3.6.1, embedded runtime, 3 environments on 2 cores): the
// fault checks wait out a plugin timeout, and a witness of SVC-008 the
// recovery timeout.
func typicalSeconds(c conformance.Check) float64 {
	switch {
	case c.ID == "FAULT-001":
		return 46
	case c.ID == "SVC-008":
		return 30
	case c.ID == "FAULT-004":
		return 12
	case c.ID == "HELM-001":
		return 9
	case c.Area == conformance.Pruning, c.ID == "SMOKE-002", c.ID == "HELM-004", c.ID == "SVC-006", c.ID == "SVC-007":
		return 5
	}
	return 2
}

// specOverhead is what a spec costs beyond its check's own duration
// (creating and deleting its applications, waiting for them to go).
const specOverhead = 1.5

// share splits units into n shares of about equal weight: longest first,
// each to the lightest share (deterministic: ties go to the lower share).
// Units of no weight (checks the filter leaves out) go to the first share,
// so that they never make an environment of their own.
func share(us []unit, n int) [][]unit {
	sorted := slices.Clone(us)
	slices.SortStableFunc(sorted, func(a, b unit) int { return cmp.Compare(b.Weight, a.Weight) })
	shares := make([][]unit, n)
	load := make([]float64, n)
	for _, u := range sorted {
		if u.Weight == 0 {
			if len(shares[0]) > 0 {
				shares[0] = append(shares[0], u)
			}
			continue
		}
		i := 0
		for j := range load {
			if load[j] < load[i] {
				i = j
			}
		}
		shares[i] = append(shares[i], u)
		load[i] += u.Weight
	}
	return slices.DeleteFunc(shares, func(s []unit) bool { return len(s) == 0 })
}

// onlyUnits reads a child's --units file into the filter of its specs and
// the bindings it needs.
func onlyUnits(file string) (func(binding, check string) bool, map[string]bool, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, fmt.Errorf("--units: %w", err)
	}
	var us []unit
	if err := json.Unmarshal(data, &us); err != nil {
		return nil, nil, fmt.Errorf("--units %s: %w", file, err)
	}
	keep, bindings := map[string]bool{}, map[string]bool{}
	for _, u := range us {
		keep[u.Binding+"|"+u.Check] = true
		bindings[u.Binding] = true
	}
	return func(b, c string) bool { return keep[b+"|"+c] || keep[b+"|"] }, bindings, nil
}

// keepBindings narrows a plan to some bindings and the plugins they use.
func (p *pluginPlan) keepBindings(names map[string]bool) {
	p.Bindings = slices.DeleteFunc(p.Bindings, func(b conformance.Binding) bool { return !names[b.Name] })
	used := map[string]bool{}
	for _, b := range p.Bindings {
		for _, s := range b.Subjects {
			used[s.Plugin.Dir] = true
		}
	}
	p.Plugins = slices.DeleteFunc(p.Plugins, func(pl argocd.Plugin) bool { return !used[pl.Dir] })
}
