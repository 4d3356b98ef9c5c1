package conformance

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/internal/text"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// Config wires the catalogue into a Ginkgo tree.
type Config struct {
	// Env returns the environment; it is called when a spec runs, after
	// bring-up, since the tree is built before.
	Env func() *dsl.Env
	// Bindings run in this order (one top-level container, so Ginkgo does
	// not shuffle them); the first is normally the conformance one.
	Bindings []Binding
	// LabelFilter is the run's label filter: a check it does not select is
	// reported as filtered out, any other check that did not run as "not run".
	LabelFilter string
	// Checks defaults to All().
	Checks []Check
	// Repeat, above 1, runs each check that many times in a row (Ginkgo's
	// MustPassRepeatedly), to reproduce a flake: the first failing attempt
	// ends it, and its result says which attempt (Result.Attempts).
	Repeat int
	// Record receives each conformance result as its spec finishes, and
	// RecordSelfTest each witness outcome: an interrupted run keeps them.
	Record         func(v1alpha1.Result)
	RecordSelfTest func(v1alpha1.SelfTestResult)
	// Upgrade, when set, makes this an upgrade run: the tree is the hops of
	// its path with the checks of area upgrade, instead of the catalogue.
	Upgrade *UpgradeRun
	// Only, when set, keeps the catalogue specs it accepts (by binding name
	// and check ID) and leaves the others out of the tree: the share of one
	// process of a parallel run, whose other shares record the rest.
	Only func(binding, checkID string) bool
	// Claim, when set, is asked as each spec begins whether this process
	// runs it: false means another process of the run took it from their
	// shared queue, and the spec is left out of this process's results (an
	// error fails the spec). Only a spec it runs is recorded.
	Claim func(binding, checkID string) (bool, error)
	// Queue, for a binding whose checks are claimed from a queue, gives
	// their IDs in the queue's order (longest first): that binding runs
	// Ordered, its checks in this order (any other after, in Checks'
	// order). Ginkgo otherwise sorts a container's specs by their text;
	// other bindings keep that order.
	Queue map[string][]string
	// Done, when set, is called once every spec of the tree has been
	// recorded, in the process that ran them: where no suite-level hook
	// can be had (the tree inside an author's own Ginkgo suite), the
	// moment to write the report.
	Done func()
}

// CheckTimeout bounds one check: a check whose expectations all have their
// own bounds takes at most a few minutes (FAULT's, the longest, waits out
// two fault timeouts), so this only ever stops a hang (an Argo CD call that
// never returns) from stopping the run.
const CheckTimeout = 10 * time.Minute

// outcome is attached to a spec whose verdict is not Ginkgo's own: a
// Provisional check, a witness run, or a not-supported check.
type outcome struct {
	State   v1alpha1.State
	Message string
}

const outcomeEntry = "cmp-conformance outcome"

// observe records an observation of the running check.
var observe = dsl.Observe

func observations(r ginkgo.SpecReport) []string {
	var out []string
	for _, e := range r.ReportEntries {
		if v, ok := e.GetRawValue().(string); ok && e.Name == dsl.ObservationEntry {
			out = append(out, v)
		}
	}
	return out
}

// durationEntry carries how long the check itself ran: Ginkgo's RunTime
// includes the BeforeAll of an upgrade hop (switching Argo CD) in the first
// spec of the hop.
const durationEntry = "cmp-conformance check duration"

// settleEntry carries how long the spec took to give Argo CD the settings
// its check runs under (settle): set-up, not the check's time.
const settleEntry = "cmp-conformance settle duration"

// checkSeconds is the check's own duration, or the spec's.
func checkSeconds(r ginkgo.SpecReport) float64 {
	if d, ok := durationOf(r, durationEntry); ok {
		return d.Seconds()
	}
	return r.RunTime.Seconds()
}

// durationOf is the duration r's report entry name carries.
func durationOf(r ginkgo.SpecReport, name string) (time.Duration, bool) {
	v, _ := entryValue(r, name)
	d, ok := v.(time.Duration)
	return d, ok
}

// specProfile is the time r's spec spent around its check: set-up before it
// (Argo CD settled for it, a binding's BeforeAll: its RBAC settings),
// cleanup after it (DeferCleanup: applications deleted, settings restored;
// an Ordered container's last spec carries its AfterAll and cleanups).
func specProfile(r ginkgo.SpecReport) (setup, cleanup float64) {
	const before = types.NodeTypeBeforeAll | types.NodeTypeBeforeEach | types.NodeTypeJustBeforeEach
	const after = types.NodeTypeAfterEach | types.NodeTypeJustAfterEach | types.NodeTypeAfterAll |
		types.NodeTypeCleanupAfterEach | types.NodeTypeCleanupAfterAll
	if d, ok := durationOf(r, settleEntry); ok {
		setup += d.Seconds()
	}
	for _, e := range r.SpecEvents {
		switch {
		case e.SpecEventType != types.SpecEventNodeEnd:
		case e.NodeType.Is(before):
			setup += e.Duration.Seconds()
		case e.NodeType.Is(after):
			cleanup += e.Duration.Seconds()
		}
	}
	return setup, cleanup
}

// entryValue is the value of r's first report entry named name.
func entryValue(r ginkgo.SpecReport, name string) (any, bool) {
	for _, e := range r.ReportEntries {
		if e.Name == name {
			return e.GetRawValue(), true
		}
	}
	return nil, false
}

// mismatchPrefix starts the failure of a witness spec that disagreed.
const mismatchPrefix = "self-test mismatch: witness"

// specKey names a spec: its binding, its hop ("" outside upgrade runs) and
// its leaf text.
type specKey struct{ binding, hop, leaf string }

type specInfo struct {
	binding Binding
	check   Check
	hop     string
}

// treeName is the container that holds the checks.
const treeName = "cmp-conformance"

// Register builds the Ginkgo tree: one Describe per binding, one It per check
// the binding can run. Call it before Run (or RunSpecs in your own suite).
func Register(cfg Config) error {
	checks := cfg.Checks
	if checks == nil {
		checks = All()
	}
	selected, err := types.ParseLabelFilter(cfg.LabelFilter)
	if err != nil {
		return fmt.Errorf("--label-filter %q: %s", cfg.LabelFilter, text.Plain(err.Error()))
	}
	for _, b := range cfg.Bindings {
		if ids := b.undeclared(); len(ids) > 0 {
			return fmt.Errorf("witness %s must fail %v without saying how: give each a pattern of its reason (FailsWith)", b.Name, ids)
		}
	}
	specs := map[specKey]specInfo{}
	ginkgo.Describe(treeName, func() {
		if cfg.Upgrade != nil {
			var upg []Check
			for _, c := range checks {
				if c.Area == Upgrade {
					upg = append(upg, c)
				}
			}
			registerUpgrade(cfg, upg, specs)
			return
		}
		for _, b := range cfg.Bindings {
			b.aside = othersAside(cfg.Bindings, b)
			ginkgo.Describe(b.Name, bindingDecorations(b, len(cfg.Queue) > 0), func() {
				if b.ChangesArgoCD() {
					reconfigureArgoCD(cfg, b)
				}
				for _, c := range runOrder(b, checks, cfg.Queue) {
					// The upgrade checks judge a hop: only an upgrade run has one.
					if c.Area == Upgrade || !b.Has(c) || (cfg.Only != nil && !cfg.Only(b.Name, c.ID)) {
						continue
					}
					leaf := leafText(c)
					specs[specKey{b.Name, "", leaf}] = specInfo{binding: b, check: c}
					decorations := []any{ginkgo.Label(c.Labels()...), ginkgo.SpecTimeout(CheckTimeout)}
					if cfg.Repeat > 1 {
						decorations = append(decorations, ginkgo.MustPassRepeatedly(cfg.Repeat))
					}
					ginkgo.It(leaf, append(decorations, func(ctx ginkgo.SpecContext) {
						claimed(cfg, b, c)
						runCheck(ctx, cfg.Env(), b, c)
					})...)
				}
			})
		}
	})
	recorded := map[specKey]bool{}
	// Interruptible, with room: Done may take an environment down.
	ginkgo.ReportAfterEach(func(ctx ginkgo.SpecContext, r ginkgo.SpecReport) {
		key, ok := keyOf(r)
		if !ok {
			return
		}
		info, ok := specs[key]
		if !ok || recorded[key] {
			return
		}
		recorded[key] = true
		if !takenElsewhere(r) {
			record(cfg, info, r, selected(info.check.Labels()))
		}
		if len(recorded) == len(specs) {
			gomega.Expect(restoreArgoCD(ctx, cfg.Env())).To(gomega.Succeed())
			if cfg.Done != nil {
				cfg.Done()
			}
		}
	}, ginkgo.NodeTimeout(5*time.Minute))
	return nil
}

// takenEntry marks a spec another process of the run claimed (Config.Claim).
const takenEntry = "cmp-conformance taken by another process"

// claimed skips the running spec when Config.Claim says another process
// runs it.
func claimed(cfg Config, b Binding, c Check) {
	if cfg.Claim == nil {
		return
	}
	mine, err := cfg.Claim(b.Name, c.ID)
	if err != nil {
		ginkgo.Fail(fmt.Sprintf("claiming %s of %s from the run's queue: %v", c.ID, b.Name, err))
	}
	if !mine {
		ginkgo.AddReportEntry(takenEntry, true, ginkgo.ReportEntryVisibilityNever)
		ginkgo.Skip("run by another environment of this run")
	}
}

func takenElsewhere(r ginkgo.SpecReport) bool {
	_, ok := entryValue(r, takenEntry)
	return ok
}

// leafText is a check's spec text, by which Ginkgo orders unordered specs.
func leafText(c Check) string { return c.ID + ": " + c.Title }

// runOrder is the order a binding's checks run in. With a queue
// (Config.Queue) every binding is Ordered: the queued binding's checks run
// in the queue's order, the rest after in Checks' order; a binding that
// changes Argo CD's settings runs in Checks' order, as it always does; any
// other in the order Ginkgo gives unordered specs, by their text. So a
// queue changes the order of its own binding only (a witness's checks may
// depend on theirs), and, every container being Ordered, Ginkgo runs the
// witnesses first ("broken/..." before "conformance") and the queue fills
// what they leave.
func runOrder(b Binding, checks []Check, queues map[string][]string) []Check {
	queue, queued := queues[b.Name]
	switch {
	case len(queues) == 0 || (!queued && b.ChangesArgoCD()):
		return checks
	case !queued:
		out := slices.Clone(checks)
		slices.SortStableFunc(out, func(a, b Check) int { return strings.Compare(leafText(a), leafText(b)) })
		return out
	}
	pos := func(c Check) int {
		if i := slices.Index(queue, c.ID); i >= 0 {
			return i
		}
		return len(queue)
	}
	out := slices.Clone(checks)
	slices.SortStableFunc(out, func(a, b Check) int { return pos(a) - pos(b) })
	return out
}

// bindingDecorations keeps the checks of a binding that changes Argo CD's
// settings together (Ordered), so that no other binding's check runs under
// them; ContinueOnFailure, since a witness fails checks on purpose and the
// rest must still run. When a binding's checks are claimed from a queue
// (Config.Queue), every binding is Ordered (runOrder says in which order).
func bindingDecorations(b Binding, queue bool) []any {
	if b.ChangesArgoCD() || queue {
		return []any{ginkgo.Ordered, ginkgo.ContinueOnFailure}
	}
	return nil
}

// keyOf finds a spec's key from its containers: cmp-conformance/<binding>,
// or cmp-conformance/upgrade/hop <name>/<binding>, below whatever containers
// hold the tree (an author's own Ginkgo suite).
func keyOf(r ginkgo.SpecReport) (specKey, bool) {
	all := r.ContainerHierarchyTexts
	for i := len(all) - 1; i >= 0; i-- {
		if all[i] != treeName {
			continue
		}
		switch h := all[i:]; {
		case len(h) == 4 && h[1] == "upgrade":
			return specKey{h[3], strings.TrimPrefix(h[2], "hop "), r.LeafNodeText}, true
		case len(h) == 2:
			return specKey{h[1], "", r.LeafNodeText}, true
		}
	}
	return specKey{}, false
}

func runCheck(ctx ginkgo.SpecContext, env *dsl.Env, b Binding, c Check) {
	runCheckOn(ctx, env, b, c, nil)
}

// runCheckOn runs a check, on a hop of an upgrade run when hop is set.
func runCheckOn(ctx ginkgo.SpecContext, env *dsl.Env, b Binding, c Check, hop *hopRun) {
	start := time.Now()
	defer func() { ginkgo.AddReportEntry(durationEntry, time.Since(start), ginkgo.ReportEntryVisibilityNever) }()
	if ok, err := c.AppliesTo(env.ArgoCDVersion); err != nil {
		ginkgo.Fail(err.Error())
	} else if !ok {
		msg := fmt.Sprintf("applies to Argo CD %s, not %s", c.Versions, env.ArgoCDVersion)
		ginkgo.AddReportEntry(outcomeEntry, outcome{v1alpha1.StateNotApplicable, msg}, ginkgo.ReportEntryVisibilityFailureOrVerbose)
		ginkgo.Skip(msg)
	}
	if why := notApplicable(env, b, c); why != "" {
		ginkgo.AddReportEntry(outcomeEntry, outcome{v1alpha1.StateNotApplicable, why}, ginkgo.ReportEntryVisibilityFailureOrVerbose)
		ginkgo.Skip(why)
	}
	for _, role := range c.Roles {
		p := b.Subjects[role].Plugin
		for _, f := range c.Requires {
			if !p.Has(string(f)) {
				msg := fmt.Sprintf("plugin %s does not declare %s", p.FullName(), f)
				ginkgo.AddReportEntry(outcomeEntry, outcome{v1alpha1.StateNotSupported, msg}, ginkgo.ReportEntryVisibilityFailureOrVerbose)
				ginkgo.Skip(msg)
			}
		}
	}
	// Settling Argo CD is the spec's set-up, not the check's time.
	settled := time.Now()
	s := NewSuite(env, b)
	s.hop = hop
	s.deadline, s.serverDeadline = settle(ctx, env, b, c, !c.DeadlineAfterSetUp)
	if c.DeadlineAfterSetUp {
		s.pendingDeadline = func(ctx context.Context) {
			ginkgo.By(fmt.Sprintf("the set-up synced: the repo-server deadline shortened to %s, as a user would", c.Deadline))
			s.deadline, s.serverDeadline = settle(ctx, env, b, c, true)
		}
	}
	ginkgo.AddReportEntry(settleEntry, time.Since(settled), ginkgo.ReportEntryVisibilityNever)
	start = time.Now()
	test := func() {
		c.Test(ctx, s)
		// A check that never put its deadline in force judged something
		// else than it says: the harness's fault, never a verdict.
		if s.pendingDeadline != nil {
			ginkgo.Fail(fmt.Sprintf("harness: %s never put its deadline (%s) in force (Suite.StartDeadline)", c.ID, c.Deadline))
		}
	}
	if !b.Witness && c.Level != Provisional {
		test()
		return
	}
	// The real outcome is recorded; the spec itself fails only when a witness
	// disagrees with what it is expected to do.
	failure := gomega.InterceptGomegaFailure(test)
	o := outcome{State: v1alpha1.StatePassed}
	if failure != nil {
		o = outcome{State: v1alpha1.StateFailed, Message: plainWords(failure.Error())}
	}
	ginkgo.AddReportEntry(outcomeEntry, o, ginkgo.ReportEntryVisibilityFailureOrVerbose)
	// A witness of a Provisional check is judged only at the end, against
	// the reference plugins' result of the check (reports.Finalize): while
	// Argo CD diverges they fail it too, and the day upstream fixes the
	// divergence the witness's declaration no longer holds. So its spec
	// does not fail on a disagreement: the report decides.
	if b.Witness && c.Level != Provisional {
		want := b.Expects(c.ID, env.ArgoCDVersion)
		if (want == "fail") != (o.State == v1alpha1.StateFailed) {
			ginkgo.Fail(fmt.Sprintf("%s %s was expected to %s %s but it %s: %s", mismatchPrefix, b.Name, want, c.ID, o.State, o.Message))
		}
		if ok, why := b.FailsForTheRightReason(c.ID, env.ArgoCDVersion, o.Message); want == "fail" && !ok {
			ginkgo.Fail(fmt.Sprintf("%s %s %s %s: %s", mismatchPrefix, b.Name, c.ID, why, o.Message))
		}
	}
}

// filteredOut says whether the filters of the Ginkgo suite running the tree
// (an author's -ginkgo.focus, -ginkgo.skip, -ginkgo.label-filter) leave the
// spec out, as Ginkgo matches them: regular expressions over the
// containers' and the spec's texts, and a label expression.
func filteredOut(sc types.SuiteConfig, r ginkgo.SpecReport) bool {
	text := strings.Join(append(slices.Clone(r.ContainerHierarchyTexts), r.LeafNodeText), " ")
	matches := func(exprs []string) bool {
		for _, e := range exprs {
			if re, err := regexp.Compile(e); err == nil && re.MatchString(text) {
				return true
			}
		}
		return false
	}
	if len(sc.FocusStrings) > 0 && !matches(sc.FocusStrings) || matches(sc.SkipStrings) {
		return true
	}
	if sc.LabelFilter != "" {
		if f, err := types.ParseLabelFilter(sc.LabelFilter); err == nil && !f(r.Labels()) {
			return true
		}
	}
	return false
}

func record(cfg Config, info specInfo, r ginkgo.SpecReport, selected bool) {
	state, msg, clean := specState(r)
	ran := true
	if state == v1alpha1.StateSkipped && msg == "" {
		// Ginkgo skips silently for a label filter, but also after Ctrl-C,
		// --fail-fast or the suite timeout: only the filter says which.
		ran = false
		sc, _ := ginkgo.GinkgoConfiguration()
		switch {
		case !selected:
			msg = "not selected by the label filter"
		case filteredOut(sc, r):
			msg = "not selected by the suite's focus, skip or label filter"
		default:
			msg = "not run: the run stopped before it (interrupted, fail-fast or timeout)"
		}
	}
	if strings.HasPrefix(msg, InterruptedPrefix) {
		ran = false
	}
	if info.binding.Witness {
		// A witness row that did not run proves nothing either way: it is
		// left out, and the run itself is marked incomplete. Nor does one
		// whose check does not apply to this version.
		if cfg.RecordSelfTest == nil || !ran || state == v1alpha1.StateNotApplicable {
			return
		}
		want := info.binding.Expects(info.check.ID, cfg.Env().ArgoCDVersion)
		if want == "pass" && state == v1alpha1.StateNotSupported {
			// A witness without the feature a check needs says nothing of
			// it; one that must fail it and cannot is a mismatch (below).
			return
		}
		// Only a clean outcome counts: a harness panic, an abort or a timeout
		// is not the witness failing the check.
		ok := clean && ((want == "fail" && state == v1alpha1.StateFailed) || (want == "pass" && state == v1alpha1.StatePassed))
		if !clean {
			msg = "the check did not run to a verdict (" + r.State.String() + "): " + msg
		}
		if right, why := info.binding.FailsForTheRightReason(info.check.ID, cfg.Env().ArgoCDVersion, msg); ok && want == "fail" && !right {
			ok, msg = false, why+": "+msg
		}
		setup, cleanup := specProfile(r)
		cfg.RecordSelfTest(v1alpha1.SelfTestResult{CheckID: info.check.ID, Witness: info.binding.Name, Expected: want,
			Observed: state, OK: ok, Message: msg, DurationSeconds: checkSeconds(r), SetupSeconds: setup, CleanupSeconds: cleanup, Hop: info.hop, Steps: steps(r),
			// Judged at the end against the reference (reports.Finalize),
			// which a parallel run may have recorded in another process.
			Provisional: info.check.Level == Provisional})
		return
	}
	if cfg.Record == nil {
		return
	}
	c := info.check
	setup, cleanup := specProfile(r)
	cfg.Record(v1alpha1.Result{ID: c.ID, Title: c.Title, Area: string(c.Area), Level: c.Level, State: state,
		DurationSeconds: checkSeconds(r), SetupSeconds: setup, CleanupSeconds: cleanup, Attempts: r.NumAttempts, Message: msg, Upstream: c.Upstream,
		StartedAt: r.StartTime.UTC().Truncate(time.Millisecond), Observations: observations(r), Hop: info.hop, Steps: steps(r), Judged: judged(info.binding, c), Features: features(c),
		RuntimeLimited: state == v1alpha1.StateNotApplicable && runtimeLimited(cfg, info.binding, c), BlockedBy: blockedOf(c, state, msg)})
}

// blockedOf is the check that owns the cause of c's failure, when c could
// not judge (CannotJudge); never c itself.
func blockedOf(c Check, state v1alpha1.State, msg string) string {
	if owner := blockedBy(msg); state == v1alpha1.StateFailed && owner != c.ID {
		return owner
	}
	return ""
}

// judged names the plugins of the binding that the check used, by role.
func judged(b Binding, c Check) []string {
	var out []string
	for _, r := range append(append([]Role{}, c.Roles...), c.AnyRole...) {
		if sub, ok := b.Subjects[r]; ok {
			out = append(out, string(r)+"="+sub.Name())
		}
	}
	return out
}

func features(c Check) []string {
	var out []string
	for _, f := range c.Requires {
		out = append(out, string(f))
	}
	return out
}

// steps are the spec's By steps, timed from its start: the check's log.
func steps(r ginkgo.SpecReport) []v1alpha1.Step {
	var out []v1alpha1.Step
	for _, e := range r.SpecEvents {
		if e.SpecEventType == types.SpecEventByStart {
			at := max(e.TimelineLocation.Time.Sub(r.StartTime), 0)
			out = append(out, v1alpha1.Step{AtSeconds: at.Round(time.Millisecond).Seconds(), Text: e.Message})
		}
	}
	return out
}

// InterruptedPrefix starts the message of a check Ctrl-C (or a timeout)
// cut short: it did not run to a verdict.
const InterruptedPrefix = "interrupted before it finished"

// specState maps a spec's Ginkgo state, or the outcome attached to it, onto a
// result state. clean is false when the spec ended in a way that is not a
// verdict on the check (a panic, an abort, a timeout).
func specState(r ginkgo.SpecReport) (state v1alpha1.State, msg string, clean bool) {
	var o *outcome
	for _, e := range r.ReportEntries {
		if e.Name == outcomeEntry {
			if v, ok := e.GetRawValue().(outcome); ok {
				o = &v
			}
		}
	}
	failure := plainWords(strings.TrimSpace(r.Failure.Message))
	if loc := r.Failure.Location; failure != "" && loc.FileName != "" && r.State.Is(types.SpecStateFailureStates) {
		failure += fmt.Sprintf("\n(at %s:%d)", loc.FileName, loc.LineNumber)
	}
	clean = !r.State.Is(types.SpecStatePanicked | types.SpecStateAborted | types.SpecStateTimedout)
	switch {
	case r.State == types.SpecStateInterrupted:
		// Ctrl-C says nothing of the check: it did not fail, it did not finish.
		return v1alpha1.StateSkipped, InterruptedPrefix + " (" + failure + ")", false
	case !clean:
		return v1alpha1.StateFailed, failure, false
	case o != nil && o.State != v1alpha1.StatePassed:
		return o.State, o.Message, true
	case o != nil && r.State.Is(types.SpecStateFailureStates) && strings.HasPrefix(failure, mismatchPrefix):
		// The check passed; the spec failed only because a witness was
		// expected to fail it. The observation is "passed".
		return v1alpha1.StatePassed, failure, true
	case r.State.Is(types.SpecStateFailureStates):
		return v1alpha1.StateFailed, failure, true
	case o != nil:
		return o.State, o.Message, true
	case r.State == types.SpecStatePassed:
		return v1alpha1.StatePassed, "", true
	default:
		return v1alpha1.StateSkipped, failure, true
	}
}
