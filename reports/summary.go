package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cmp-conformance/cmp-conformance/internal/text"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// renderSummary renders r as Markdown for people: the verdict first, then
// what ran where, then the detail needed to act on a failure.
func renderSummary(r *v1alpha1.ConformanceReport) string {
	var b strings.Builder
	verdict := cmp.Or(r.Summary.Verdict, "unknown")
	fmt.Fprintf(&b, "# CMP conformance report: %s\n\n", verdict)
	writeRunInfo(&b, r)
	writeCertification(&b, r)
	writeEnvironment(&b, r)
	writeCounts(&b, r)
	writeTimings(&b, r)
	writeResults(&b, r)
	writeUpgrade(&b, r)
	writeSelfTest(&b, r)
	writeDivergences(&b, r)
	writeFailures(&b, r)
	return b.String()
}

// writeCertification puts a plugin's level first, with the line its author
// can paste in a README.
func writeCertification(b *strings.Builder, r *v1alpha1.ConformanceReport) {
	c := r.Certification
	if c == nil {
		return
	}
	fmt.Fprintf(b, "## Certification: %s\n\n%s is **%s**", cell(c.Subject), cell(c.Subject), c.Level)
	if len(c.Passed) > 0 {
		fmt.Fprintf(b, "; features that passed: %s", strings.Join(c.Passed, ", "))
	}
	if len(c.Failed) > 0 {
		fmt.Fprintf(b, "; features that failed: %s", strings.Join(c.Failed, ", "))
	}
	if len(c.NotSupported) > 0 {
		fmt.Fprintf(b, "; not declared (their checks did not apply): %s", strings.Join(c.NotSupported, ", "))
	}
	b.WriteString(".\n\n")
	if len(c.NotRun) > 0 {
		b.WriteString("Not every check of the profile ran, so no level is claimed. Not run:\n\n")
		for _, n := range c.NotRun {
			fmt.Fprintf(b, "- %s\n", n)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "For your README:\n\n%s\n", fenced(c.Badge, "markdown"))
}

func writeRunInfo(b *strings.Builder, r *v1alpha1.ConformanceReport) {
	var facts []string
	if r.Metadata.RunID != "" {
		facts = append(facts, "run `"+r.Metadata.RunID+"`")
	}
	if !r.Metadata.Date.IsZero() {
		facts = append(facts, r.Metadata.Date.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	if r.Metadata.SuiteVersion != "" {
		facts = append(facts, "suite "+r.Metadata.SuiteVersion)
	}
	if r.Profile != "" {
		facts = append(facts, "profile "+r.Profile)
	}
	if len(facts) > 0 {
		fmt.Fprintf(b, "%s.\n\n", strings.Join(facts, ", "))
	}
	if r.Error != "" {
		fmt.Fprintf(b, "**The run failed:** %s (full message under Failures).\n\n", text.FirstLine(r.Error))
	}
	if r.Interrupted {
		b.WriteString("**The run was interrupted**: only the checks that finished are reported.\n\n")
	}
	if r.Metadata.Command != "" {
		fmt.Fprintf(b, "Reproduce with:\n\n%s\n", fenced(r.Metadata.Command, "sh"))
	}
}

func writeEnvironment(b *strings.Builder, r *v1alpha1.ConformanceReport) {
	env := r.Environment
	b.WriteString("## Environment\n\n| | |\n|---|---|\n")
	row := func(k, v string) { fmt.Fprintf(b, "| %s | %s |\n", k, cell(v)) }
	row("Runtime", env.Runtime)
	row("Provider", env.Provider)
	row("Argo CD", env.ArgoCDVersion)
	if env.ArgoCDImage != "" {
		row("Argo CD image", env.ArgoCDImage)
	}
	row("Kubernetes", env.KubernetesVersion)
	if env.Host.OS != "" {
		row("Host", fmt.Sprintf("%s/%s, %d CPUs", env.Host.OS, env.Host.Arch, env.Host.CPUs))
	}
	for _, p := range r.Subject.Plugins {
		detail := []string{p.Version}
		if s := shortSHA(p.ConfigSHA256, "config sha256"); s != "" {
			detail = append(detail, s)
		}
		if p.Image != "" {
			detail = append(detail, "image "+p.Image+" "+shortSHA(strings.TrimPrefix(p.ImageID, "sha256:"), "sha256"))
		}
		row("Plugin "+cell(p.Name), strings.Join(detail, ", "))
	}
	for _, bin := range env.Binaries {
		detail := []string{bin.Version}
		if s := shortSHA(bin.SHA256, "sha256"); s != "" {
			detail = append(detail, s)
		}
		if bin.Source != "" {
			detail = append(detail, "from "+bin.Source)
		}
		row("Binary "+cell(bin.Name), strings.Join(detail, ", "))
	}
	for _, d := range env.Deviations {
		row("Deviation "+cell(d.Tool), fmt.Sprintf("%s used for %s: %s", d.Used, d.Pinned, d.Reason))
	}
	b.WriteString("\n")
	if len(env.Notes) > 0 {
		for _, note := range env.Notes {
			fmt.Fprintf(b, "- %s\n", bullet(note))
		}
		b.WriteString("\n")
	}
}

// bullet makes s safe as the text of a Markdown list item: continuation lines
// are indented so they stay inside the item, and blank lines are dropped so
// they cannot end the list.
func bullet(s string) string {
	var lines []string
	for line := range strings.Lines(strings.TrimSpace(s)) {
		if line = strings.TrimRight(line, " \t\r\n"); line != "" {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n  ")
}

// shortSHA abbreviates a digest: enough to tell builds apart in a table.
func shortSHA(sum, label string) string {
	if sum == "" {
		return ""
	}
	return label + " " + sum[:min(len(sum), 12)]
}

func writeCounts(b *strings.Builder, r *v1alpha1.ConformanceReport) {
	b.WriteString("## Summary\n\n| Level | Passed | Failed | Not supported | Skipped | Not applicable |\n|---|---:|---:|---:|---:|---:|\n")
	for _, level := range []v1alpha1.Level{v1alpha1.LevelCore, v1alpha1.LevelExtended, v1alpha1.LevelProvisional} {
		c := r.Summary.Counts[level]
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %d |\n", level, c.Passed, c.Failed, c.NotSupported, c.Skipped, c.NotApplicable)
	}
	for _, why := range r.Summary.Reasons {
		fmt.Fprintf(b, "\n- %s", bullet(why))
	}
	if len(r.Summary.Reasons) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "\n%d checks in total. Provisional checks do not decide the verdict.\n\n", r.Summary.Total)
}

func writeTimings(b *strings.Builder, r *v1alpha1.ConformanceReport) {
	t := r.Timings
	b.WriteString("## Timings\n\n| Stage | Seconds |\n|---|---:|\n")
	fmt.Fprintf(b, "| Bring-up | %s |\n| Suite | %s |\n| Total | %s |\n", secs(t.BringUpSeconds), secs(t.SuiteSeconds), secs(t.TotalSeconds))
	for _, p := range t.Phases {
		fmt.Fprintf(b, "| Phase: %s | %s |\n", cell(p.Name), secs(p.Seconds))
	}
	b.WriteString("\n")
	writeSlowestSpecs(b, r)
}

// slowestSpecs is how many specs the summary lists by their time.
const slowestSpecs = 10

// Spec is one spec's time: a check run against the run's subjects or a
// witness, and what its spec spent around the check.
type Spec struct {
	Check, Against, Hop        string
	Own, Setup, Cleanup, Whole float64
}

// SlowestSpecs lists r's specs, check and witness rows alike, slowest first
// (by the whole spec); a check that was skipped is not among them.
func SlowestSpecs(r *v1alpha1.ConformanceReport) []Spec {
	var all []Spec
	add := func(check, against, hop string, own, setup, cleanup float64) {
		all = append(all, Spec{check, against, hop, own, setup, cleanup, own + setup + cleanup})
	}
	for _, res := range r.Results {
		if res.State == v1alpha1.StateSkipped {
			continue // it did not run: no time of its own to rank
		}
		add(res.ID, "the run's subjects", res.Hop, res.DurationSeconds, res.SetupSeconds, res.CleanupSeconds)
	}
	for _, st := range r.SelfTest {
		add(st.CheckID, st.Witness, st.Hop, st.DurationSeconds, st.SetupSeconds, st.CleanupSeconds)
	}
	slices.SortStableFunc(all, func(x, y Spec) int { return cmp.Compare(y.Whole, x.Whole) })
	return all
}

// SlowestSpecsTable writes the n slowest of specs as a Markdown table, after
// the sentence that says what it holds.
func SlowestSpecsTable(b *strings.Builder, specs []Spec, n int) {
	fmt.Fprintf(b, "Slowest specs (of %d): a check's own time, and its spec's set-up and clean-up.\n\n", len(specs))
	b.WriteString("| Check | Against | Check's own | Set-up | Clean-up | Spec |\n|---|---|---:|---:|---:|---:|\n")
	for _, s := range specs[:min(n, len(specs))] {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", cell(withHop(s.Check, s.Hop)), cell(s.Against), secs(s.Own), secs(s.Setup), secs(s.Cleanup), secs(s.Whole))
	}
}

// writeSlowestSpecs lists the specs that took longest.
func writeSlowestSpecs(b *strings.Builder, r *v1alpha1.ConformanceReport) {
	all := SlowestSpecs(r)
	if len(all) < 2 {
		return
	}
	SlowestSpecsTable(b, all, slowestSpecs)
	b.WriteString("\n")
}

func writeResults(b *strings.Builder, r *v1alpha1.ConformanceReport) {
	b.WriteString("## Results\n\n")
	if len(r.Results) == 0 {
		b.WriteString("No check finished.\n\n")
		return
	}
	results := slices.Clone(r.Results)
	// Stable, so the per-hop results of one check keep their hop order.
	slices.SortStableFunc(results, func(x, y v1alpha1.Result) int {
		return cmp.Or(cmp.Compare(x.Area, y.Area), cmp.Compare(x.ID, y.ID))
	})
	hops := anyHop(results, func(res v1alpha1.Result) string { return res.Hop })
	for i, res := range results {
		if i == 0 || res.Area != results[i-1].Area {
			if i > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(b, "### %s\n\n", cmp.Or(strings.TrimSpace(res.Area), "(no area)"))
			if hops {
				b.WriteString("| ID | Hop | Title | Level | State | Duration | Note |\n|---|---|---|---|---|---:|---|\n")
			} else {
				b.WriteString("| ID | Title | Level | State | Duration | Note |\n|---|---|---|---|---:|---|\n")
			}
		}
		id := cell(res.ID)
		if hops {
			id += " | " + cell(res.Hop)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %ss | %s |\n", id, cell(res.Title), res.Level,
			stateWord(res.State), secs(res.DurationSeconds), cell(note(res)))
	}
	b.WriteString("\n")
}

// note is a result's observations, then its message.
func note(res v1alpha1.Result) string {
	parts := slices.Clone(res.Observations)
	if res.Message != "" {
		parts = append(parts, res.Message)
	}
	return strings.Join(parts, "; ")
}

func writeDivergences(b *strings.Builder, r *v1alpha1.ConformanceReport) {
	b.WriteString("## Divergences from the specification\n\n")
	if len(r.Divergences) == 0 {
		b.WriteString("No Provisional checks ran.\n\n")
		return
	}
	b.WriteString("Provisional checks cover behaviour the specification promises that released " +
		"Argo CD may not deliver yet. Their outcomes are recorded here and do not decide the verdict.\n\n")
	b.WriteString("| ID | Title | State | Upstream | Note |\n|---|---|---|---|---|\n")
	for _, d := range r.Divergences {
		links := make([]string, 0, len(d.Upstream))
		for _, u := range d.Upstream {
			links = append(links, upstreamLink(u))
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", cell(d.ID), cell(d.Title), stateWord(d.State),
			strings.Join(links, ", "), cell(d.Message))
	}
	b.WriteString("\n")
}

// upstreamLink renders an upstream reference as a Markdown link when it names
// a GitHub issue or pull request (GitHub redirects /issues/N to /pull/N).
func upstreamLink(ref string) string {
	ref = strings.TrimSpace(ref)
	if _, _, ok := gitHubRef(ref); ok {
		return fmt.Sprintf("[%s](%s)", ref, upstreamURL(ref))
	}
	if url := upstreamURL(ref); url != "" {
		return "<" + url + ">"
	}
	return cell(ref)
}

// upstreamURL is where an upstream reference points: the GitHub issue of
// owner/repo#N, a URL as it is, else "".
func upstreamURL(ref string) string {
	if repo, num, ok := gitHubRef(ref); ok {
		return "https://github.com/" + repo + "/issues/" + num
	}
	if strings.HasPrefix(ref, "https://") || strings.HasPrefix(ref, "http://") {
		return ref
	}
	return ""
}

// gitHubRef splits a reference such as "argoproj/argo-cd#8145" into
// "argoproj/argo-cd" and "8145".
func gitHubRef(ref string) (repo, num string, ok bool) {
	repo, num, ok = strings.Cut(ref, "#")
	owner, name, slash := strings.Cut(repo, "/")
	if !ok || !slash || num == "" || !validName(owner) || !validName(name) {
		return "", "", false
	}
	for _, c := range num {
		if c < '0' || c > '9' {
			return "", "", false
		}
	}
	return repo, num, true
}

// validName reports whether s can be a GitHub owner or repository name.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		ok := c == '-' || c == '_' || c == '.' ||
			(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
		if !ok {
			return false
		}
	}
	return true
}

func writeFailures(b *strings.Builder, r *v1alpha1.ConformanceReport) {
	b.WriteString("## Failures\n\n")
	found := false
	if r.Error != "" {
		found = true
		fmt.Fprintf(b, "### Run error\n\n%s\n", fenced(r.Error, "text"))
	}
	for _, res := range r.Results {
		if res.State != v1alpha1.StateFailed {
			continue
		}
		found = true
		fmt.Fprintf(b, "### %s: %s (%s)\n\n", withHop(res.ID, text.FirstLine(res.Hop)), strings.TrimSpace(text.FirstLine(res.Title)), res.Level)
		fmt.Fprintf(b, "%s\n", fenced(cmp.Or(res.Message, "(no message)"), "text"))
	}
	if writeUpgradeFailures(b, r) {
		found = true
	}
	if writeSelfTestFailures(b, r) {
		found = true
	}
	if !found {
		b.WriteString("None.\n")
	}
}

// fenced wraps s in a code fence longer than any backtick run inside it, so
// a message that itself contains ``` cannot end the block early.
func fenced(s, lang string) string {
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + lang + "\n" + strings.TrimRight(s, "\n") + "\n" + fence + "\n"
}

// cell makes s safe for a Markdown table cell: a cell cannot span lines, so
// only the first line is kept, and '|' would end the cell early.
func cell(s string) string {
	return strings.ReplaceAll(text.FirstLine(s), "|", `\|`)
}

// stateWord spells a state as a plain word (no icons: the file is also read
// in terminals and diffs).
func stateWord(s v1alpha1.State) string {
	if s == v1alpha1.StateNotSupported {
		return "not supported"
	}
	return cmp.Or(string(s), "unknown")
}

func secs(s float64) string {
	return strconv.FormatFloat(s, 'f', 2, 64)
}
