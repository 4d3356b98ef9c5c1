package reports

import (
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// One cause, one failure: a sample that does not generate fails PLUG-002,
// and the checks that needed it to generate say they could not judge.
func TestBlockedChecksCountTheirCauseOnce(t *testing.T) {
	core := func(id string, state v1alpha1.State, blockedBy string) v1alpha1.Result {
		return v1alpha1.Result{ID: id, Level: v1alpha1.LevelCore, State: state, BlockedBy: blockedBy, Message: "sample web does not generate: exit status 1"}
	}
	r := &v1alpha1.ConformanceReport{Profile: ProfilePlugin, Results: []v1alpha1.Result{
		core("PLUG-001", v1alpha1.StatePassed, ""),
		core("PLUG-002", v1alpha1.StateFailed, ""),
		core("PLUG-003", v1alpha1.StateFailed, "PLUG-002"),
		core("PLUG-004", v1alpha1.StateFailed, "PLUG-002"),
		core("PLUG-011", v1alpha1.StateFailed, "PLUG-002"),
	}}
	Finalize(r)
	c := r.Summary.Counts[v1alpha1.LevelCore]
	if c.Failed != 1 || c.Skipped != 3 {
		t.Errorf("counts %+v, want 1 failed (PLUG-002) and 3 not judged", c)
	}
	for _, res := range r.Results[2:] {
		if res.State != v1alpha1.StateSkipped || !strings.HasPrefix(res.Message, "not judged: PLUG-002 failed for the same cause") {
			t.Errorf("%s: %s %q", res.ID, res.State, res.Message)
		}
	}
	if r.Certification.Level != v1alpha1.LevelNotConformant || len(r.Certification.NotRun) != 0 {
		t.Errorf("level %s, not run %v: want Not Conformant, as PLUG-002's failure makes it", r.Certification.Level, r.Certification.NotRun)
	}
	var failedLines, blockedLines int
	for _, why := range r.Summary.Reasons {
		switch {
		case strings.Contains(why, "failed (Core)"):
			failedLines++
		case strings.Contains(why, "PLUG-003, PLUG-004, PLUG-011 could not judge: PLUG-002 failed"):
			blockedLines++
		default:
			t.Errorf("unexpected reason %q", why)
		}
	}
	if failedLines != 1 || blockedLines != 1 {
		t.Errorf("reasons %q: want one failure and one line for the checks it blocked", r.Summary.Reasons)
	}
	if Finalize(r); r.Summary.Counts[v1alpha1.LevelCore].Failed != 1 {
		t.Error("Finalize is not idempotent")
	}

	// Where the owner passed, the failure is the check's own.
	r = &v1alpha1.ConformanceReport{Profile: ProfilePlugin, Results: []v1alpha1.Result{
		core("PLUG-002", v1alpha1.StatePassed, ""), core("PLUG-003", v1alpha1.StateFailed, "PLUG-002"),
	}}
	if Finalize(r); r.Results[1].State != v1alpha1.StateFailed || r.Certification.Level != v1alpha1.LevelNotConformant {
		t.Errorf("owner passed: PLUG-003 %s, level %s; want its failure kept", r.Results[1].State, r.Certification.Level)
	}
}
