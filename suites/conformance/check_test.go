package conformance

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
)

func TestCheckAppliesTo(t *testing.T) {
	tests := []struct {
		versions, argocd string
		want             bool
		wantErr          string
	}{
		{versions: "", argocd: "v2.5.0", want: true},
		{versions: "", argocd: "v3.2.11", want: true},
		// No constraint: even an unparsable version applies.
		{versions: "", argocd: "not-a-version", want: true},
		{versions: ">=2.6.0", argocd: "v2.5.0", want: false},
		{versions: ">=2.6.0", argocd: "v2.6.0", want: true},
		{versions: ">=2.6.0", argocd: "v3.2.11", want: true},
		{versions: ">=2.6.0", argocd: "2.14.21", want: true},
		{versions: "<3.0.0", argocd: "v3.2.11", want: false},
		{versions: ">=2.6.0", argocd: "not-a-version", wantErr: `argo CD version "not-a-version"`},
		{versions: ">=two", argocd: "v3.2.11", wantErr: `check TEST-001: bad version constraint ">=two"`},
	}
	for _, tt := range tests {
		t.Run(tt.versions+"@"+tt.argocd, func(t *testing.T) {
			c := Check{ID: "TEST-001", Versions: tt.versions}
			got, err := c.AppliesTo(tt.argocd)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("AppliesTo(%q) = %v, %v; want an error containing %q", tt.argocd, got, err, tt.wantErr)
				}
				if got {
					t.Errorf("AppliesTo(%q) = true with an error", tt.argocd)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("AppliesTo(%q) = %v, %v; want %v, nil", tt.argocd, got, err, tt.want)
			}
		})
	}
}

func TestCheckLabels(t *testing.T) {
	tests := []struct {
		name  string
		check Check
		want  []string
	}{
		{name: "with features", check: Check{ID: "SMOKE-009", Area: Smoke, Level: Core, Requires: []Feature{Discovery, StaticParameters}},
			want: []string{"SMOKE-009", "smoke", string(Core), "Discovery", "StaticParameters"}},
		{name: "without features", check: Check{ID: "HELM-001", Area: Helm, Level: Provisional},
			want: []string{"HELM-001", "helm", string(Provisional)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.check.Labels(); !slices.Equal(got, tt.want) {
				t.Errorf("Labels() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBindingHas(t *testing.T) {
	other := Role("other")
	b := Binding{Name: "conformance", Subjects: map[Role]Subject{RolePlain: {Role: RolePlain}}}
	tests := []struct {
		roles, anyRole []Role
		want           bool
	}{
		{want: true},
		{roles: []Role{RolePlain}, want: true},
		{roles: []Role{other}, want: false},
		{roles: []Role{RolePlain, other}, want: false},
		{anyRole: []Role{other, RolePlain}, want: true},
		{anyRole: []Role{other}, want: false},
		{roles: []Role{other}, anyRole: []Role{RolePlain}, want: false},
	}
	for _, tt := range tests {
		if got := b.Has(Check{Roles: tt.roles, AnyRole: tt.anyRole}); got != tt.want {
			t.Errorf("Has(roles %v, any of %v) = %v, want %v", tt.roles, tt.anyRole, got, tt.want)
		}
	}
	if (Binding{}).Has(Check{Roles: []Role{RolePlain}}) {
		t.Error("a binding without subjects has role plain")
	}
}

func TestBindingExpects(t *testing.T) {
	tests := []struct {
		name    string
		binding Binding
		id      string
		version string
		want    string
	}{
		{name: "witness, listed", binding: Binding{Witness: true, MustFail: []string{"SMOKE-001", "SMOKE-002"}}, id: "SMOKE-002", want: "fail"},
		{name: "witness, not listed", binding: Binding{Witness: true, MustFail: []string{"SMOKE-002"}}, id: "SMOKE-001", want: "pass"},
		{name: "conformance ignores MustFail", binding: Binding{MustFail: []string{"SMOKE-001"}}, id: "SMOKE-001", want: "pass"},
		{name: "conformance", binding: Binding{Name: "conformance"}, id: "SMOKE-001", want: "pass"},
		{name: "conditional, version matches", binding: Binding{Witness: true, MustFail: []string{"ENV-008@>=3.0.0"}}, id: "ENV-008", version: "v3.2.11", want: "fail"},
		{name: "conditional, version does not match", binding: Binding{Witness: true, MustFail: []string{"ENV-008@>=3.0.0"}}, id: "ENV-008", version: "v2.14.21", want: "pass"},
		{name: "conditional, other check", binding: Binding{Witness: true, MustFail: []string{"ENV-008@<3.0.0"}}, id: "ENV-007", version: "v2.14.21", want: "pass"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			version := tt.version
			if version == "" {
				version = "v3.2.11"
			}
			if got := tt.binding.Expects(tt.id, version); got != tt.want {
				t.Errorf("Expects(%s) = %q, want %q", tt.id, got, tt.want)
			}
		})
	}
}

func TestSuitePlugin(t *testing.T) {
	plain := Subject{Role: RolePlain}
	plain.Plugin.Name = "cmp-plain"
	s := &Suite{binding: Binding{Name: "b", Subjects: map[Role]Subject{RolePlain: plain}}}
	if got := s.Plugin(RolePlain).Name; got != "cmp-plain" {
		t.Errorf("Plugin(plain).Name = %q, want cmp-plain", got)
	}
	defer func() {
		r := recover()
		if msg, _ := r.(string); !strings.Contains(msg, "binding b has no plugin for role other") {
			t.Errorf("Plugin(other) panicked with %v, want a message naming binding and role", r)
		}
	}()
	s.Plugin(Role("other"))
}

func TestValidateMustFail(t *testing.T) {
	known := map[string]bool{"ENV-008": true}
	for entry, ok := range map[string]bool{"ENV-008": true, "ENV-008@>=3.0.0": true, "ENV-999": false, "ENV-008@>>3": false} {
		if err := ValidateMustFail([]string{entry}, known); (err == nil) != ok {
			t.Errorf("ValidateMustFail(%q) = %v, want ok=%v", entry, err, ok)
		}
	}
}

// A check's duration is its own, not that of a BeforeAll Ginkgo charges to
// the first spec of an upgrade hop.
func TestCheckSeconds(t *testing.T) {
	r := ginkgo.SpecReport{RunTime: 20 * time.Second}
	if got := checkSeconds(r); got != 20 {
		t.Errorf("without an entry: %v, want the spec's 20", got)
	}
	r.ReportEntries = types.ReportEntries{{Name: "other", Value: types.WrapEntryValue(time.Second)}, {Name: durationEntry, Value: types.WrapEntryValue(3 * time.Second)}}
	if got := checkSeconds(r); got != 3 {
		t.Errorf("with an entry: %v, want the check's 3", got)
	}
}

// keyOf finds a spec of either tree from its containers.
func TestKeyOf(t *testing.T) {
	for _, tt := range []struct {
		containers []string
		want       specKey
		ok         bool
	}{
		{containers: []string{"cmp-conformance", "broken/plain-pinned"}, want: specKey{"broken/plain-pinned", "", "leaf"}, ok: true},
		{containers: []string{"cmp-conformance", "upgrade", "hop v3.0.23 -> v3.2.11", "conformance"}, want: specKey{"conformance", "v3.0.23 -> v3.2.11", "leaf"}, ok: true},
		{containers: []string{"certify my-plugin", "cmp-conformance", "certify"}, want: specKey{"certify", "", "leaf"}, ok: true},
		{containers: []string{"cmp-conformance", "x", "cmp-conformance", "certify"}, want: specKey{"certify", "", "leaf"}, ok: true},
		{containers: []string{"cmp-conformance"}},
		{containers: []string{"cmp-conformance", "other", "x", "y"}},
	} {
		got, ok := keyOf(ginkgo.SpecReport{ContainerHierarchyTexts: tt.containers, LeafNodeText: "leaf"})
		if ok != tt.ok || got != tt.want {
			t.Errorf("keyOf(%q) = %+v, %v; want %+v, %v", tt.containers, got, ok, tt.want, tt.ok)
		}
	}
}

func TestFailsForTheRightReason(t *testing.T) {
	b := Binding{Name: "broken/x", Witness: true, MustFail: []string{"PRUNE-001"},
		FailsWith: map[string]*regexp.Regexp{"PRUNE-001": regexp.MustCompile(`prune-keep still exists`)}}
	if ok, _ := b.FailsForTheRightReason("PRUNE-001", "3.6.1", "Timed out after 10s.\nConfigMap ns/prune-keep still exists (<nil>)"); !ok {
		t.Error("the declared failure was not accepted")
	}
	if ok, why := b.FailsForTheRightReason("PRUNE-001", "3.6.1", "Timed out after 90s.\nan operation is requested or running"); ok || !strings.Contains(why, "/prune-keep still exists/") {
		t.Errorf("a failure for another reason was accepted (why %q)", why)
	}
	if ok, why := b.FailsForTheRightReason("SMOKE-001", "3.6.1", "anything"); ok || !strings.Contains(why, "declares no reason for failing SMOKE-001") {
		t.Errorf("a failure without a declared reason was accepted (why %q)", why)
	}
	// The library refuses such a binding before anything runs.
	b.MustFail = append(b.MustFail, "ENV-008@>=3.0.0")
	if got := b.undeclared(); len(got) != 1 || got[0] != "ENV-008" {
		t.Errorf("undeclared = %v, want [ENV-008]", got)
	}
}

func TestJudgedNamesThePluginsByRole(t *testing.T) {
	b := Binding{Name: "conformance", Subjects: map[Role]Subject{
		RolePlain:         {Role: RolePlain, Plugin: argocd.Plugin{Name: "mine", Version: "v2"}},
		RoleParameterized: {Role: RoleParameterized, Plugin: argocd.Plugin{Name: "cmp-sidecar", Version: "v1.0"}},
	}}
	got := judged(b, Check{Roles: []Role{RolePlain}})
	if strings.Join(got, ",") != "plain=mine-v2" {
		t.Errorf("judged = %v", got)
	}
}

func TestFilteredOut(t *testing.T) {
	r := ginkgo.SpecReport{ContainerHierarchyTexts: []string{"author suite", "cmp-conformance", "certify/x"}, LeafNodeText: "PLUG-002: samples sync",
		LeafNodeLabels: []string{"PLUG-002", "plugin"}}
	tests := []struct {
		name string
		sc   types.SuiteConfig
		want bool
	}{
		{name: "no filter", want: false},
		{name: "focus matching", sc: types.SuiteConfig{FocusStrings: []string{"PLUG-00[0-9]"}}, want: false},
		{name: "focus elsewhere", sc: types.SuiteConfig{FocusStrings: []string{"my own spec"}}, want: true},
		{name: "focus on a container", sc: types.SuiteConfig{FocusStrings: []string{"author suite"}}, want: false},
		{name: "skip matching", sc: types.SuiteConfig{SkipStrings: []string{"samples sync"}}, want: true},
		{name: "label filter leaving it out", sc: types.SuiteConfig{LabelFilter: "!plugin"}, want: true},
		{name: "label filter keeping it", sc: types.SuiteConfig{LabelFilter: "PLUG-002"}, want: false},
	}
	for _, tt := range tests {
		if got := filteredOut(tt.sc, r); got != tt.want {
			t.Errorf("%s: filteredOut = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestChecksFailThroughGomega keeps ginkgo.Fail out of the checks: a
// witness's run intercepts Gomega failures (gomega.InterceptGomegaFailure),
// not ginkgo.Fail, which would fail the whole suite although the witness
// failed as it must. Only the wiring (ginkgo.go, settings.go) may call it.
func TestChecksFailThroughGomega(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "ginkgo.go" || f == "settings.go" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "ginkgo.Fail(") {
				t.Errorf("%s:%d calls ginkgo.Fail: fail through Gomega (gomega.Expect), which a witness's run intercepts", f, i+1)
			}
		}
	}
}

func TestMergeSettings(t *testing.T) {
	check := []string{"ARGOCD_A=true", "ARGOCD_B=1"}
	witness := []string{"ARGOCD_A=false", "ARGOCD_C="}
	got := mergeSettings(check, witness)
	want := []string{"ARGOCD_B=1", "ARGOCD_A=false", "ARGOCD_C="}
	if !slices.Equal(got, want) {
		t.Errorf("mergeSettings = %v, want %v: the binding's value wins, by name", got, want)
	}
	if got := mergeSettings(check, nil); !slices.Equal(got, check) {
		t.Errorf("without the binding's: %v, want the check's %v", got, check)
	}
	if !slices.Equal(check, []string{"ARGOCD_A=true", "ARGOCD_B=1"}) {
		t.Errorf("mergeSettings changed the check's own list: %v", check)
	}
}

// A reason keyed ID@constraint holds on the versions meeting it; the plain
// ID's on the others, and a binding declaring only constrained reasons has
// none elsewhere.
func TestFailsForTheRightReasonByVersion(t *testing.T) {
	b := Binding{Name: "broken/w", Witness: true, MustFail: []string{"DISC-009"}, FailsWith: map[string]*regexp.Regexp{
		"DISC-009":        regexp.MustCompile("held up another"),
		"DISC-009@<3.1.0": regexp.MustCompile("past the deadline"),
	}}
	for _, tt := range []struct {
		version, msg string
		want         bool
	}{
		{"3.6.1", "one application held up another", true},
		{"3.6.1", "the find command ran 40s, past the deadline", false},
		{"2.14.21", "the find command ran 40s, past the deadline", true},
		{"2.14.21", "one application held up another", false},
	} {
		if ok, why := b.FailsForTheRightReason("DISC-009", tt.version, tt.msg); ok != tt.want {
			t.Errorf("%s %q: %v (%s), want %v", tt.version, tt.msg, ok, why, tt.want)
		}
	}
	only := Binding{Name: "broken/w", Witness: true, MustFail: []string{"DISC-009"}, FailsWith: map[string]*regexp.Regexp{"DISC-009@<3.1.0": regexp.MustCompile("x")}}
	if len(only.undeclared()) != 0 {
		t.Error("a constrained reason does not count as a declaration")
	}
	if ok, why := only.FailsForTheRightReason("DISC-009", "3.6.1", "x"); ok || !strings.Contains(why, "declares no reason for failing DISC-009 on 3.6.1") {
		t.Errorf("no reason at 3.6.1 accepted: %v %s", ok, why)
	}
}

// specProfile splits the nodes around a check: set-up before it, clean-up
// after it (its own DeferCleanups and an Ordered container's last ones),
// never the check or the report's own node.
func TestSpecProfile(t *testing.T) {
	end := func(n types.NodeType, d time.Duration) types.SpecEvent {
		return types.SpecEvent{SpecEventType: types.SpecEventNodeEnd, NodeType: n, Duration: d}
	}
	r := ginkgo.SpecReport{SpecEvents: []types.SpecEvent{
		{SpecEventType: types.SpecEventNodeStart, NodeType: types.NodeTypeBeforeAll},
		end(types.NodeTypeBeforeAll, 3*time.Second),
		end(types.NodeTypeIt, 20*time.Second),
		end(types.NodeTypeCleanupAfterEach, 2*time.Second),
		end(types.NodeTypeCleanupAfterAll, 5*time.Second),
		end(types.NodeTypeReportAfterEach, time.Second),
	}}
	if setup, cleanup := specProfile(r); setup != 3 || cleanup != 7 {
		t.Errorf("set-up %v s and clean-up %v s, want 3 and 7", setup, cleanup)
	}
}
