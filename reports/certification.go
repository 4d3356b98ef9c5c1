package reports

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cmp-conformance/cmp-conformance/internal/text"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// ProfilePlugin is the profile of certify runs: one plugin on its samples.
const ProfilePlugin = "plugin"

// ProfileExtension is the profile of certify --extension runs: one
// extension on its own tests.
const ProfileExtension = "extension"

// Certifies says whether runs of profile certify one subject (a level, a
// badge), rather than judge a catalogue.
func Certifies(profile string) bool {
	return profile == ProfilePlugin || profile == ProfileExtension
}

// featureCore names the checks every plugin must pass (no feature needed).
const featureCore = "Core"

// certification is the level the subject of a plugin-profile run reached,
// from the results alone, as Gateway API grades implementations: Conformant
// when no check failed (a check needing a feature the plugin does not
// declare is not-supported, and the feature listed as not declared);
// Partially Conformant when every check every plugin must pass ("Core", no
// feature needed) passed but a check of a declared feature failed, the
// features that passed listed; Not Conformant when a Core check failed; Not
// Certified when the run did not judge the plugin whole (a run error, an
// interruption, a self-test mismatch, a check filtered out).
func certification(r *v1alpha1.ConformanceReport) *v1alpha1.Certification {
	if !Certifies(r.Profile) {
		return nil
	}
	var subject []string
	for _, p := range r.Subject.Plugins {
		s := p.Name
		if p.Image != "" {
			s += " (" + p.Image + ")"
		}
		subject = append(subject, s)
	}
	for _, e := range r.Subject.Extensions {
		subject = append(subject, fmt.Sprintf("extension %s (%s)", e.Name, strings.Join(e.Kinds, ", ")))
	}
	c := &v1alpha1.Certification{Subject: strings.Join(subject, ", "), Passed: []string{}, Failed: []string{}, NotSupported: []string{}}
	state := map[string]string{} // feature -> passed, failed, not-supported, other
	for _, res := range r.Results {
		if res.Level == v1alpha1.LevelProvisional {
			continue
		}
		// A check that applies to the version but that the runtime cannot
		// run is not run, as one filtered out is: the plugin was not judged
		// on it, so no level may claim it.
		if res.State == v1alpha1.StateSkipped && res.BlockedBy != "" {
			continue // not judged: its owner's failure counts the cause
		}
		if res.State == v1alpha1.StateSkipped || res.RuntimeLimited {
			c.NotRun = append(c.NotRun, res.ID+": "+notRunWhy(r, res))
		}
		if res.State == v1alpha1.StateNotApplicable && !res.RuntimeLimited {
			continue
		}
		if res.RuntimeLimited {
			res.State = v1alpha1.StateSkipped
		}
		fs := res.Features
		if len(fs) == 0 {
			fs = []string{featureCore}
		}
		for _, f := range fs {
			state[f] = worse(state[f], string(res.State))
		}
	}
	otherNotRun, failedCore, failedFeature := false, false, false
	for _, f := range slices.Sorted(maps.Keys(state)) {
		switch state[f] {
		case string(v1alpha1.StatePassed):
			c.Passed = append(c.Passed, f)
		case string(v1alpha1.StateNotSupported):
			c.NotSupported = append(c.NotSupported, f)
		case string(v1alpha1.StateSkipped):
			otherNotRun = true
		case string(v1alpha1.StateFailed):
			c.Failed = append(c.Failed, f)
			failedCore = failedCore || f == featureCore
			failedFeature = failedFeature || f != featureCore
		}
	}
	mismatch := r.Summary.SelfTest != nil && r.Summary.SelfTest.Mismatches > 0
	switch {
	case r.Error != "" || r.Interrupted || mismatch || r.Summary.Verdict == v1alpha1.VerdictIncomplete || otherNotRun || len(c.NotRun) > 0:
		// The run did not judge the plugin whole: no level.
		c.Level = v1alpha1.LevelNotCertified
	case failedCore:
		c.Level = v1alpha1.LevelNotConformant
	case failedFeature:
		c.Level = v1alpha1.LevelPartiallyConformant
	default:
		c.Level = v1alpha1.LevelConformant
	}
	c.Badge = fmt.Sprintf("**cmp-conformance %s:** %s with Argo CD %s (suite %s, run %s)",
		r.Profile+" profile", c.Level, r.Environment.ArgoCDVersion, r.Metadata.SuiteVersion, r.Metadata.RunID)
	if len(c.Passed) > 0 {
		c.Badge += "; features that passed: " + strings.Join(c.Passed, ", ")
	}
	if r.Profile == ProfileExtension {
		// What an extension gives a check nothing to judge with (no action
		// tests) is no gap of the run, but the badge says it was not judged.
		var na []string
		for _, res := range r.Results {
			if res.State == v1alpha1.StateNotApplicable && !res.RuntimeLimited && res.Level != v1alpha1.LevelProvisional {
				na = append(na, res.ID)
			}
		}
		if len(na) > 0 {
			c.Badge += "; not applicable (nothing of the extension to judge): " + strings.Join(slices.Compact(na), ", ")
		}
	}
	if len(c.NotRun) > 0 {
		ids := make([]string, len(c.NotRun))
		for i, n := range c.NotRun {
			ids[i], _, _ = strings.Cut(n, ":")
		}
		c.Badge += "; not run: " + strings.Join(slices.Compact(ids), ", ")
	}
	return c
}

// notRunWhy says why a check of the profile did not run, and where it would.
func notRunWhy(r *v1alpha1.ConformanceReport, res v1alpha1.Result) string {
	why := cmp.Or(text.FirstLine(res.Message), "not run")
	if res.RuntimeLimited {
		// Every check runs on the embedded runtime, which has every ability.
		why += fmt.Sprintf(" (the %s runtime cannot run it; the embedded runtime does: certify --runtime embedded)", r.Environment.Runtime)
	}
	return why
}

// worse is the worse of two states of a feature's checks.
func worse(a, b string) string {
	rank := map[string]int{"": 0, string(v1alpha1.StatePassed): 1, string(v1alpha1.StateNotSupported): 2,
		string(v1alpha1.StateSkipped): 3, string(v1alpha1.StateFailed): 4}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// Expect lists how a certify report departs from an expected outcome: its
// certification level, and exactly the checks that failed.
func Expect(r *v1alpha1.ConformanceReport, level string, failed []string) []string {
	var out []string
	if r.Certification == nil {
		return []string{"the report has no certification (not a certify run)"}
	}
	if r.Certification.Level != level {
		out = append(out, fmt.Sprintf("level %s, want %s", r.Certification.Level, level))
	}
	var got []string
	for _, res := range r.Results {
		if res.State == v1alpha1.StateFailed && !slices.Contains(got, res.ID) {
			got = append(got, res.ID)
		}
	}
	want := slices.Clone(failed)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		out = append(out, fmt.Sprintf("failed %v, want %v", got, want))
	}
	return out
}
