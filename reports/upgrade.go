package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cmp-conformance/cmp-conformance/internal/text"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// withHop appends an upgrade hop to a name ("UPG-001 (hop v3.0.23 -> v3.2.11)")
// so the per-hop outcomes of one check stay distinguishable wherever only a
// name is shown; it returns s unchanged outside upgrade runs.
func withHop(s, hop string) string {
	if hop == "" {
		return s
	}
	return strings.TrimSpace(s + " (hop " + hop + ")")
}

// hopChecks lists the states of the results recorded on hop, in result order.
// It always returns a non-nil slice, as the schema requires.
func hopChecks(results []v1alpha1.Result, hop string) []v1alpha1.HopCheck {
	checks := []v1alpha1.HopCheck{}
	for _, res := range results {
		if res.Hop == hop {
			checks = append(checks, v1alpha1.HopCheck{ID: res.ID, State: res.State})
		}
	}
	return checks
}

// finalizeUpgrade normalizes the upgrade section's nil slices and derives each
// hop's checks from the results (replacing what they held, so Finalize stays
// idempotent). Results naming no hop of the section are in no hop's checks.
func finalizeUpgrade(r *v1alpha1.ConformanceReport) {
	u := r.Upgrade
	if u == nil {
		return
	}
	if u.Path == nil {
		u.Path = []string{}
	}
	if u.Apps == nil {
		u.Apps = []v1alpha1.UpgradeApp{}
	}
	if u.Hops == nil {
		u.Hops = []v1alpha1.Hop{}
	}
	for i := range u.Hops {
		h := &u.Hops[i]
		if h.Phases == nil {
			h.Phases = []v1alpha1.Phase{}
		}
		if h.Apps == nil {
			h.Apps = []v1alpha1.HopApp{}
		}
		h.Checks = hopChecks(r.Results, h.Name)
	}
}

// writeUpgrade renders the upgrade section of summary.md; it writes nothing
// for a run that was not an upgrade run. Hop checks are counted from the
// results, so an unfinalized report renders the same.
func writeUpgrade(b *strings.Builder, r *v1alpha1.ConformanceReport) {
	u := r.Upgrade
	if u == nil {
		return
	}
	b.WriteString("## Upgrade\n\n")
	fmt.Fprintf(b, "Path: %s. After each hop every application must be Synced and Healthy again within %ss.\n\n",
		cell(strings.Join(u.Path, " -> ")), secs(u.TimeoutSeconds))
	if len(u.Apps) > 0 {
		fmt.Fprintf(b, "| Application | Binding | Role | Plugin |\n|---|---|---|---|\n")
		for _, a := range u.Apps {
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", cell(a.Name), cell(a.Binding), cell(a.Role), cell(a.Plugin))
		}
		b.WriteString("\n")
	}
	if len(u.Hops) == 0 {
		b.WriteString("No hop ran.\n\n")
		return
	}
	b.WriteString("| Hop | Seconds | Phases | Checks passed | Checks failed | Error |\n|---|---:|---|---:|---:|---|\n")
	for _, h := range u.Hops {
		phases := make([]string, 0, len(h.Phases))
		for _, p := range h.Phases {
			phases = append(phases, p.Name+" "+secs(p.Seconds))
		}
		passed, failed := 0, 0
		for _, c := range hopChecks(r.Results, h.Name) {
			switch c.State {
			case v1alpha1.StatePassed:
				passed++
			case v1alpha1.StateFailed:
				failed++
			}
		}
		fmt.Fprintf(b, "| %s | %s | %s | %d | %d | %s |\n", cell(h.Name), secs(h.Seconds),
			cell(strings.Join(phases, ", ")), passed, failed, cell(h.Error))
	}
	b.WriteString("\n")
	for _, h := range u.Hops {
		fmt.Fprintf(b, "### Hop %s\n\n", text.FirstLine(h.Name))
		if len(h.Apps) == 0 {
			b.WriteString("No application was compared.\n\n")
			continue
		}
		b.WriteString("| Application | Before | After | Manifests | Expected differences |\n|---|---|---|---|---|\n")
		for _, a := range h.Apps {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", cell(a.Name), cell(shortDigest(a.ManifestsBefore)),
				cell(shortDigest(a.ManifestsAfter)), manifestsVerdict(a), cell(strings.Join(a.ExpectedDifferences, "; ")))
		}
		b.WriteString("\n")
	}
}

// shortDigest abbreviates a "sha256:<hex>" digest to its first 12 hex digits.
func shortDigest(d string) string {
	d, _ = strings.CutPrefix(d, "sha256:")
	return d[:min(len(d), 12)]
}

// manifestsVerdict says how an application's manifests fared across a hop.
func manifestsVerdict(a v1alpha1.HopApp) string {
	switch {
	case a.ManifestsAfter == "":
		return "not generated"
	case a.ManifestsAfter == a.ManifestsBefore:
		return "identical"
	}
	return "changed"
}

// writeUpgradeFailures renders each failed hop under Failures and reports
// whether there was any.
func writeUpgradeFailures(b *strings.Builder, r *v1alpha1.ConformanceReport) bool {
	if r.Upgrade == nil {
		return false
	}
	found := false
	for _, h := range r.Upgrade.Hops {
		if h.Error == "" {
			continue
		}
		found = true
		fmt.Fprintf(b, "### Upgrade hop %s\n\n%s\n", text.FirstLine(h.Name), fenced(h.Error, "text"))
	}
	return found
}

// anyHop reports whether any element has a non-empty hop, which decides
// whether a table needs a Hop column.
func anyHop[T any](items []T, hop func(T) string) bool {
	return slices.ContainsFunc(items, func(x T) bool { return hop(x) != "" })
}
