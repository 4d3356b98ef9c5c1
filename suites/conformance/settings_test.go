package conformance

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
)

// reconfigurations records what settle asks of the runtime.
type reconfigurations struct{ repo, ctrl, srv [][]string }

func (r *reconfigurations) ReconfigureRepoServer(_ context.Context, s []string) error {
	r.repo = append(r.repo, s)
	return nil
}

func (r *reconfigurations) ReconfigureController(_ context.Context, s []string) error {
	r.ctrl = append(r.ctrl, s)
	return nil
}

func (r *reconfigurations) ReconfigureServer(_ context.Context, s []string) error {
	r.srv = append(r.srv, s)
	return nil
}

// settle asks for what each spec needs, the binding's settings winning over
// the check's, its deadline on the controller and the server, and never for a restore
// after it: the runtime leaves a component that runs with them already.
func TestSettleAsksForWhatTheSpecNeeds(t *testing.T) {
	gomega.RegisterTestingT(t)
	rec := &reconfigurations{}
	env := &dsl.Env{RepoServer: rec, Controller: rec, Server: rec}
	witness := Binding{Name: "broken/x", RepoServerSettings: []string{"ARGOCD_A=off"}}
	check := Check{ID: "X-1", RepoServer: []string{"ARGOCD_A=on", "ARGOCD_B=1"}, Deadline: 10 * time.Second}

	if d, srv := settle(context.Background(), env, witness, check, true); d != 10*time.Second || !srv {
		t.Errorf("deadline %s (on the server too: %t), want the check's 10s on both", d, srv)
	}
	if d, srv := settle(context.Background(), env, Binding{Name: "conformance"}, Check{ID: "X-2"}, true); d != 0 || srv {
		t.Errorf("deadline %s (on the server too: %t), want none", d, srv)
	}
	wantRepo := [][]string{{"ARGOCD_B=1", "ARGOCD_A=off"}, nil}
	wantCtrl := [][]string{{argocd.ControllerRepoServerTimeoutEnv + "=10"}, nil}
	wantSrv := [][]string{{argocd.ServerRepoServerTimeoutEnv + "=10"}, nil}
	if !slices.EqualFunc(rec.repo, wantRepo, slices.Equal) || !slices.EqualFunc(rec.ctrl, wantCtrl, slices.Equal) || !slices.EqualFunc(rec.srv, wantSrv, slices.Equal) {
		t.Errorf("asked the repo-server %q, the controller %q and the server %q, want %q, %q and %q", rec.repo, rec.ctrl, rec.srv, wantRepo, wantCtrl, wantSrv)
	}
	if err := restoreArgoCD(context.Background(), env); err != nil || len(rec.repo) != 3 || rec.repo[2] != nil || rec.ctrl[2] != nil || rec.srv[2] != nil {
		t.Errorf("the tree's end gives Argo CD its own settings back: %v, %q, %q, %q", err, rec.repo, rec.ctrl, rec.srv)
	}
}

// A check whose own API call waits for steps the harness paces leaves
// argocd-server the environment's deadline: only the controller gets the
// check's.
func TestSettleLeavesTheServerItsDeadlineWhereAsked(t *testing.T) {
	gomega.RegisterTestingT(t)
	rec := &reconfigurations{}
	env := &dsl.Env{RepoServer: rec, Controller: rec, Server: rec}
	check := Check{ID: "X-1", Deadline: 10 * time.Second, ServerKeepsDeadline: true}
	if d, srv := settle(context.Background(), env, Binding{Name: "conformance"}, check, true); d != 10*time.Second || srv {
		t.Errorf("deadline %s (on the server too: %t), want the check's 10s on the controller alone", d, srv)
	}
	if len(rec.ctrl) != 1 || !slices.Equal(rec.ctrl[0], []string{argocd.ControllerRepoServerTimeoutEnv + "=10"}) || len(rec.srv) != 1 || rec.srv[0] != nil {
		t.Errorf("asked the controller %q and the server %q, want the deadline on the controller alone", rec.ctrl, rec.srv)
	}
	if discFindCommandHang.Deadline == 0 || !discFindCommandHang.ServerKeepsDeadline {
		t.Error("DISC-009 runs its hang under the check's deadline and its other application's validation under the server's own")
	}
}

// Where the runtime cannot restart argocd-server, it keeps its own
// deadline, and the check's set-up validates its creation there.
func TestSettleSaysTheServerKeepsItsDeadlineWhereItCannotBeSet(t *testing.T) {
	gomega.RegisterTestingT(t)
	rec := &reconfigurations{}
	env := &dsl.Env{RepoServer: rec, Controller: rec}
	if d, srv := settle(context.Background(), env, Binding{Name: "conformance"}, Check{ID: "X-1", Deadline: 6 * time.Second}, true); d != 6*time.Second || srv {
		t.Errorf("deadline %s (on the server too: %t), want the check's 6s on the controller alone", d, srv)
	}
}

// A check whose short deadline is put in force after its set-up settles
// without it first (its set-up syncs under the environment's), and with it
// when StartDeadline is called, once.
func TestDeadlineAfterSetUpIsPutInForceByTheCheck(t *testing.T) {
	gomega.RegisterTestingT(t)
	rec := &reconfigurations{}
	env := &dsl.Env{RepoServer: rec, Controller: rec, Server: rec}
	check := Check{ID: "X-1", Deadline: 6 * time.Second, DeadlineAfterSetUp: true}
	b := Binding{Name: "conformance"}
	s := NewSuite(env, b)
	s.deadline, s.serverDeadline = settle(context.Background(), env, b, check, false)
	if s.RepoServerTimeout() != 25*time.Second || s.serverDeadline || rec.ctrl[0] != nil || rec.srv[0] != nil {
		t.Fatalf("the set-up runs under %s (server too: %t), asked the controller %q, want the environment's", s.RepoServerTimeout(), s.serverDeadline, rec.ctrl)
	}
	calls := 0
	s.pendingDeadline = func(ctx context.Context) {
		calls++
		s.deadline, s.serverDeadline = settle(ctx, env, b, check, true)
	}
	s.StartDeadline(context.Background())
	s.StartDeadline(context.Background())
	if calls != 1 || s.RepoServerTimeout() != 6*time.Second || !s.serverDeadline || s.pendingDeadline != nil {
		t.Errorf("after StartDeadline: %d settles, deadline %s (server too: %t), want one, 6s on both", calls, s.RepoServerTimeout(), s.serverDeadline)
	}
	for _, c := range []Check{faultHang, faultExecTimeout, svcRestart} {
		if !c.DeadlineAfterSetUp {
			t.Errorf("%s syncs its set-up under its short deadline", c.ID)
		}
	}
}

// shelf records what settle and restoreArgoCD set aside.
type shelf struct{ calls [][]string }

func (s *shelf) SetAside(names []string) error {
	s.calls = append(s.calls, names)
	return nil
}

// Each binding's checks see the reference plugins and its own; the other
// witnesses' are set aside, and all are back once the tree has run.
func TestOtherWitnessesAreSetAside(t *testing.T) {
	gomega.RegisterTestingT(t)
	plugin := func(name string) Subject { return Subject{Plugin: argocd.Plugin{Name: name, Version: "v1.0"}} }
	reference := Binding{Name: "conformance", Subjects: map[Role]Subject{RolePlain: plugin("cmp-plain"), RoleParameterized: plugin("cmp-sidecar")}}
	drops := Binding{Name: "broken/drops", Witness: true, Subjects: map[Role]Subject{RolePlain: plugin("broken-drops")}}
	// A witness of Argo CD's settings may bind a reference plugin: it stays in sight.
	settings := Binding{Name: "broken/settings", Witness: true, Subjects: map[Role]Subject{RoleParameterized: plugin("cmp-sidecar"), RolePlain: plugin("broken-settings")}}
	ext := Binding{Name: "broken/ext", Witness: true, Subjects: map[Role]Subject{RoleExtension: {}}}
	all := []Binding{reference, drops, settings, ext}
	for _, c := range []struct {
		b    Binding
		want []string
	}{
		{reference, []string{"broken-drops-v1.0.sock", "broken-settings-v1.0.sock"}},
		{drops, []string{"broken-settings-v1.0.sock"}},
		{settings, []string{"broken-drops-v1.0.sock"}},
		{ext, []string{"broken-drops-v1.0.sock", "broken-settings-v1.0.sock"}},
	} {
		if got := othersAside(all, c.b); !slices.Equal(got, c.want) {
			t.Errorf("set aside for %s: %q, want %q", c.b.Name, got, c.want)
		}
	}
	sh := &shelf{}
	env := &dsl.Env{Shelf: sh}
	drops.aside = othersAside(all, drops)
	settle(context.Background(), env, drops, Check{ID: "X-1"}, true)
	if err := restoreArgoCD(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"broken-settings-v1.0.sock"}, nil}; !slices.EqualFunc(sh.calls, want, slices.Equal) {
		t.Errorf("set aside %q, want %q", sh.calls, want)
	}
}
