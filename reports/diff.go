package reports

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cmp-conformance/cmp-conformance/internal/text"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// ErrIncomparable marks two reports that cannot be compared check by check:
// they claim different profiles, so the same ID judges different things.
var ErrIncomparable = errors.New("reports cannot be compared")

// DiffOptions set what counts as a change in time.
type DiffOptions struct {
	// TimeRatio: a check's time changed when one side took at least this
	// many times the other's ...
	TimeRatio float64
	// TimeMin: ... and the two differ by at least this much (a check going
	// from 0.1 s to 0.3 s is noise, not news).
	TimeMin time.Duration
}

// DefaultDiffOptions flag a check that became 1.5 times slower or faster by
// at least 5 seconds.
var DefaultDiffOptions = DiffOptions{TimeRatio: 1.5, TimeMin: 5 * time.Second}

// Side describes one of the two reports compared.
type Side struct {
	RunID         string `json:"runID"`
	ArgoCDVersion string `json:"argocdVersion"`
	ArgoCDImage   string `json:"argocdImage,omitempty"`
	Runtime       string `json:"runtime"`
	Profile       string `json:"profile,omitempty"`
	Verdict       string `json:"verdict"`
	Plugins       string `json:"plugins"`
}

// Change is one check seen on either side. A state is empty on the side
// where the check is absent.
type Change struct {
	ID          string         `json:"id"`
	Hop         string         `json:"hop,omitempty"`
	Title       string         `json:"title"`
	Level       v1alpha1.Level `json:"level"`
	Base        v1alpha1.State `json:"base,omitempty"`
	New         v1alpha1.State `json:"new,omitempty"`
	BaseSeconds float64        `json:"baseSeconds,omitempty"`
	NewSeconds  float64        `json:"newSeconds,omitempty"`
	// Message is the new side's message (the base's for a removed check).
	Message string `json:"message,omitempty"`
}

// Diff is what changed from a base report to a new one.
type Diff struct {
	Base Side `json:"base"`
	New  Side `json:"new"`
	// Regressions: Core or Extended checks that passed on the base and
	// failed on the new side.
	Regressions []Change `json:"regressions"`
	// VerdictRegression is set when the verdict went from passed to another
	// one: a run error or a self-test mismatch regresses with no check doing so.
	VerdictRegression string `json:"verdictRegression,omitempty"`
	// Fixes: Core or Extended checks that failed on the base and pass now.
	Fixes []Change `json:"fixes"`
	// Changed: other changes of state (passed to skipped, failed to not-supported ...).
	Changed []Change `json:"changed"`
	Added   []Change `json:"added"`
	Removed []Change `json:"removed"`
	// DivergencesAppeared and DivergencesGone: Provisional checks, where a
	// failure is released Argo CD departing from the spec.
	DivergencesAppeared []Change `json:"divergencesAppeared"`
	DivergencesGone     []Change `json:"divergencesGone"`
	// Slower and Faster: checks whose time changed beyond the options.
	Slower []Change `json:"slower"`
	Faster []Change `json:"faster"`
}

// Regressed says whether the new report is worse than the base: the exit
// status of `report diff`.
func (d *Diff) Regressed() bool {
	return len(d.Regressions) > 0 || d.VerdictRegression != ""
}

// Compare diffs two finalized reports. Results are matched by check ID and,
// in upgrade runs, by the hop's position on the path (hop names carry
// versions, which differ from release to release).
func Compare(base, next *v1alpha1.ConformanceReport, opts DiffOptions) (*Diff, error) {
	if base.Profile != next.Profile {
		return nil, fmt.Errorf("%w: the base claims profile %q and the new report %q", ErrIncomparable, base.Profile, next.Profile)
	}
	if (base.Upgrade == nil) != (next.Upgrade == nil) {
		return nil, fmt.Errorf("%w: one is an upgrade run and the other is not", ErrIncomparable)
	}
	d := &Diff{Base: sideOf(base), New: sideOf(next), Regressions: []Change{}, Fixes: []Change{}, Changed: []Change{},
		Added: []Change{}, Removed: []Change{}, DivergencesAppeared: []Change{}, DivergencesGone: []Change{},
		Slower: []Change{}, Faster: []Change{}}
	if base.Summary.Verdict == v1alpha1.VerdictPassed && next.Summary.Verdict != v1alpha1.VerdictPassed {
		why := Reasons(next)
		d.VerdictRegression = "the verdict went from passed to " + next.Summary.Verdict
		if len(why) > 0 {
			d.VerdictRegression += ": " + strings.Join(why, "; ")
		}
	}
	baseByKey, baseKeys := indexResults(base)
	nextByKey, nextKeys := indexResults(next)
	for _, k := range nextKeys {
		n := nextByKey[k]
		b, ok := baseByKey[k]
		if !ok {
			d.Added = append(d.Added, change(nil, &n))
			continue
		}
		c := change(&b, &n)
		switch {
		case n.Level == v1alpha1.LevelProvisional:
			if n.State == v1alpha1.StateFailed && b.State != v1alpha1.StateFailed {
				d.DivergencesAppeared = append(d.DivergencesAppeared, c)
			} else if b.State == v1alpha1.StateFailed && n.State == v1alpha1.StatePassed {
				d.DivergencesGone = append(d.DivergencesGone, c)
			} else if b.State != n.State {
				d.Changed = append(d.Changed, c)
			}
		case b.State == v1alpha1.StatePassed && n.State == v1alpha1.StateFailed:
			d.Regressions = append(d.Regressions, c)
		case b.State == v1alpha1.StateFailed && n.State == v1alpha1.StatePassed:
			d.Fixes = append(d.Fixes, c)
		case b.State != n.State:
			d.Changed = append(d.Changed, c)
		}
		if slower, faster := timeChanged(b.DurationSeconds, n.DurationSeconds, opts); slower {
			d.Slower = append(d.Slower, c)
		} else if faster {
			d.Faster = append(d.Faster, c)
		}
	}
	for _, k := range baseKeys {
		if _, ok := nextByKey[k]; !ok {
			b := baseByKey[k]
			d.Removed = append(d.Removed, change(&b, nil))
		}
	}
	return d, nil
}

func sideOf(r *v1alpha1.ConformanceReport) Side {
	var plugins []string
	for _, p := range r.Subject.Plugins {
		plugins = append(plugins, p.Name+"@"+p.Version)
	}
	return Side{RunID: r.Metadata.RunID, ArgoCDVersion: r.Environment.ArgoCDVersion, ArgoCDImage: r.Environment.ArgoCDImage, Runtime: r.Environment.Runtime,
		Profile: r.Profile, Verdict: r.Summary.Verdict, Plugins: strings.Join(plugins, ", ")}
}

// indexResults keys results by ID and hop position, and returns the keys
// in report order.
func indexResults(r *v1alpha1.ConformanceReport) (map[string]v1alpha1.Result, []string) {
	hopIndex := map[string]int{}
	if r.Upgrade != nil {
		for i, h := range r.Upgrade.Hops {
			hopIndex[h.Name] = i + 1
		}
	}
	by := map[string]v1alpha1.Result{}
	var keys []string
	for _, res := range r.Results {
		k := res.ID
		if res.Hop != "" {
			k += "@hop" + strconv.Itoa(hopIndex[res.Hop])
		}
		if _, dup := by[k]; !dup {
			keys = append(keys, k)
		}
		by[k] = res
	}
	return by, keys
}

func change(b, n *v1alpha1.Result) Change {
	var c Change
	if b != nil {
		c = Change{ID: b.ID, Hop: b.Hop, Title: b.Title, Level: b.Level, Base: b.State, BaseSeconds: b.DurationSeconds, Message: b.Message}
	}
	if n != nil {
		c.ID, c.Hop, c.Title, c.Level, c.New, c.NewSeconds, c.Message = n.ID, n.Hop, n.Title, n.Level, n.State, n.DurationSeconds, n.Message
	}
	return c
}

func timeChanged(base, next float64, o DiffOptions) (slower, faster bool) {
	if o.TimeRatio <= 1 || math.Abs(next-base) < o.TimeMin.Seconds() {
		return false, false
	}
	return next >= base*o.TimeRatio, base >= next*o.TimeRatio
}

// Markdown renders the diff for a pull request comment.
func (d *Diff) Markdown() string {
	var b strings.Builder
	b.WriteString("## cmp-conformance report diff\n\n")
	b.WriteString("| | base | new |\n|---|---|---|\n")
	row := func(name, base, next string) {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", name, cell(base), cell(next))
	}
	row("Argo CD", d.Base.ArgoCDVersion, d.New.ArgoCDVersion)
	if d.Base.ArgoCDImage != "" || d.New.ArgoCDImage != "" {
		row("Argo CD image", d.Base.ArgoCDImage, d.New.ArgoCDImage)
	}
	row("runtime", d.Base.Runtime, d.New.Runtime)
	row("plugins", d.Base.Plugins, d.New.Plugins)
	row("verdict", d.Base.Verdict, d.New.Verdict)
	row("run", d.Base.RunID, d.New.RunID)
	b.WriteString("\n")
	if d.Regressed() {
		fmt.Fprintf(&b, "**Regressed**: %d check(s) went from passed to failed.\n\n", len(d.Regressions))
	} else {
		b.WriteString("No regression.\n\n")
	}
	if d.VerdictRegression != "" {
		fmt.Fprintf(&b, "%s\n\n", d.VerdictRegression)
	}
	section := func(title string, cs []Change, withTime bool) {
		if len(cs) == 0 {
			return
		}
		fmt.Fprintf(&b, "### %s (%d)\n\n", title, len(cs))
		if withTime {
			b.WriteString("| check | level | base | new |\n|---|---|---|---|\n")
			for _, c := range cs {
				fmt.Fprintf(&b, "| %s | %s | %ss | %ss |\n", cell(junitID(c.ID, c.Hop)), c.Level, secs(c.BaseSeconds), secs(c.NewSeconds))
			}
		} else {
			b.WriteString("| check | level | base | new | message |\n|---|---|---|---|---|\n")
			for _, c := range cs {
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", cell(junitID(c.ID, c.Hop)), c.Level,
					stateWordOrAbsent(c.Base), stateWordOrAbsent(c.New), cell(text.FirstLine(c.Message)))
			}
		}
		b.WriteString("\n")
	}
	section("Regressions", d.Regressions, false)
	section("Fixes", d.Fixes, false)
	section("Divergences that appeared", d.DivergencesAppeared, false)
	section("Divergences that went away", d.DivergencesGone, false)
	section("Other changes of state", d.Changed, false)
	section("Checks added", d.Added, false)
	section("Checks removed", d.Removed, false)
	section("Slower", d.Slower, true)
	section("Faster", d.Faster, true)
	return b.String()
}

func stateWordOrAbsent(s v1alpha1.State) string {
	if s == "" {
		return "absent"
	}
	return stateWord(s)
}
