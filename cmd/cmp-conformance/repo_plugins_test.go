package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/plugins"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// checkoutRoot is the repository this test runs in: two levels above the
// package folder.
func checkoutRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "plugins", "broken")); err != nil {
		t.Fatalf("no plugins/broken in %s: %v", root, err)
	}
	return root
}

func TestRepoRoot(t *testing.T) {
	got, err := repoRoot()
	if err != nil {
		t.Fatalf("repoRoot from the package folder: %v", err)
	}
	if want := checkoutRoot(t); got != want {
		t.Errorf("repoRoot() = %q, want %q", got, want)
	}
}

// TestRepositoryWitnesses plans a self-test of the real checkout: every
// witness loads, names checks that exist and use its role, and says why.
func TestRepositoryWitnesses(t *testing.T) {
	root := checkoutRoot(t)
	plan, err := plugins.CataloguePlan(root, nil, true, plugins.ProfileCatalogue)
	if err != nil {
		t.Fatalf("plugins.CataloguePlan(self-test) on the checkout: %v", err)
	}
	upgrade, err := plugins.CataloguePlan(root, nil, true, plugins.ProfileUpgrade)
	if err != nil {
		t.Fatalf("plugins.CataloguePlan(self-test, upgrade) on the checkout: %v", err)
	}
	certify := &plugins.Plan{}
	if err := certify.AddWitnesses(root, plugins.ProfilePlugin); err != nil {
		t.Fatalf("the witnesses of profile plugin: %v", err)
	}
	files, err := filepath.Glob(filepath.Join(root, "plugins", "broken", "*", "witness.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// Each profile's plan has the conformance binding and its own witnesses.
	if len(upgrade.Bindings) < 2 || len(certify.Bindings) == 0 || len(files) == 0 || len(plan.Bindings)+len(upgrade.Bindings)+len(certify.Bindings) != len(files)+2 {
		t.Fatalf("%d witness files, %d + %d + %d bindings: want one binding per witness plus conformance in the catalogue and upgrade profiles",
			len(files), len(plan.Bindings), len(upgrade.Bindings), len(certify.Bindings))
	}
	checks := map[string]conformance.Check{}
	for _, c := range conformance.All() {
		checks[c.ID] = c
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var w plugins.Witness
		if err := yaml.UnmarshalStrict(data, &w); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if w.Why == "" {
			t.Errorf("%s: no why", f)
		}
		if len(w.MustFail) == 0 {
			t.Errorf("%s: a witness must fail at least one check", f)
		}
		for _, entry := range w.MustFail {
			id, _, _ := strings.Cut(entry, "@") // ID@constraint: version-dependent
			c, ok := checks[id]
			if !ok {
				t.Errorf("%s: %s is not a check", f, id)
				continue
			}
			if !slices.Contains(c.Roles, w.Role) && !slices.Contains(c.AnyRole, w.Role) {
				t.Errorf("%s: %s does not use role %s, so the witness is never run against it", f, id, w.Role)
			}
		}
	}
	// Every check has a witness that must fail it (README, Checks). For a
	// Core or Extended check that witness is its proof. A Provisional check
	// fails on the reference plugins too while Argo CD diverges, so its
	// witness rows prove nothing then (the report leaves them unjudged): it
	// is proven only in a run where the reference passes it, the day
	// upstream fixes the divergence. It still needs a witness for that day.
	failed := map[string]bool{}
	for _, b := range slices.Concat(plan.Bindings[1:], upgrade.Bindings[1:], certify.Bindings) {
		for _, entry := range b.MustFail {
			id, _, _ := strings.Cut(entry, "@")
			failed[id] = true
		}
	}
	var proven, provisional []string
	for id, c := range checks {
		switch {
		case !failed[id]:
			t.Errorf("no witness under plugins/broken fails %s", id)
		case c.Level == conformance.Provisional:
			provisional = append(provisional, id)
		default:
			proven = append(proven, id)
		}
	}
	slices.Sort(provisional)
	t.Logf("%d checks proven by a witness that must fail them; %d Provisional checks with such a witness, proven only in a run where the reference plugins pass them, i.e. when upstream fixes the divergence (until then their witness rows are not judged): %s",
		len(proven), len(provisional), strings.Join(provisional, ", "))
}

// TestRepositoryPlugins loads every plugin.yaml of the checkout as the
// harness will: all valid, none with a field Argo CD would ignore, and no two
// sharing a socket.
func TestRepositoryPlugins(t *testing.T) {
	root := checkoutRoot(t)
	var dirs []string
	for _, pattern := range []string{"plugins/*/plugin.yaml", "plugins/broken/*/plugin.yaml"} {
		files, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			dirs = append(dirs, filepath.Dir(f))
		}
	}
	if !slices.Contains(dirs, filepath.Join(root, plugins.Reference()[conformance.RolePlain])) {
		t.Fatalf("the reference plugin %s is not among %v", plugins.Reference()[conformance.RolePlain], dirs)
	}
	sockets := map[string]string{}
	for _, dir := range dirs {
		p, err := argocd.LoadPlugin(dir)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		// Two reference plugins set a second discovery rule on purpose: the
		// precedence checks (DISC-002, DISC-004) need it.
		// A witness of PLUG-001 sets a field Argo CD ignores.
		intended := map[string]string{"discover-name": "evaluates only fileName", "discover-glob": "evaluates only find.glob",
			"subject-ignored-field": `unknown field "timeout"`}[filepath.Base(dir)]
		if len(p.Warnings) > 0 && (intended == "" || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], intended)) {
			t.Errorf("%s: warnings %q", dir, p.Warnings)
		}
		if other, dup := sockets[p.SocketName()]; dup {
			t.Errorf("%s and %s share socket %s", dir, other, p.SocketName())
		}
		sockets[p.SocketName()] = dir
	}
}

// TestTruncatingBridgeReasons: every way a stream cut by the truncating
// bridge reads in Argo CD's messages is that witness's reason, and a plugin
// that is missing or slow is not.
func TestTruncatingBridgeReasons(t *testing.T) {
	l, err := plugins.LoadWitness(filepath.Join(checkoutRoot(t), "plugins", "broken", "service-truncating-bridge", "witness.yaml"))
	b := l.Binding
	if err != nil {
		t.Fatal(err)
	}
	const app = `Unable to generate manifests in .: rpc error: code = Unknown desc = CMP processing failed for application "a": `
	cut := []string{
		app + "rpc error: code = Unavailable desc = error reading from server: unexpected EOF",
		app + "rpc error: code = Unavailable desc = error reading from server: EOF",
		app + "rpc error: code = Unavailable desc = error reading from server: read unix @->/home/argocd/cmp-server/plugins/p.sock: read: connection reset by peer",
		app + "error sending file to cmp-server: error sending generate manifest metadata to cmp-server: EOF",
	}
	other := []string{
		app + `could not find cmp-server plugin with name "p" supporting the given repository`,
		app + "rpc error: code = DeadlineExceeded desc = context deadline exceeded",
		app + "plugin sidecar failed. error generating manifests in cmp: exit status 1",
	}
	for _, id := range []string{"SVC-001", "SVC-008"} {
		re := b.FailsWith[id]
		for _, m := range cut {
			if !re.MatchString(m) {
				t.Errorf("%s: /%s/ does not match a cut stream: %s", id, re, m)
			}
		}
		for _, m := range other {
			if re.MatchString(m) {
				t.Errorf("%s: /%s/ matches another failure: %s", id, re, m)
			}
		}
	}
}

// TestHangWitnessReasons: where a deadline stops a find command (3.1 on),
// the DISC-009 witnesses fail it only for what they break (serialization,
// an escaped child), never for the deadline messages that before 3.1 are
// the reference plugins' own failure.
func TestHangWitnessReasons(t *testing.T) {
	deadline := []string{
		"the find command ran 41.2s, past the repo-server's deadline of 25s",
		"the find command was not stopped by the repo-server's deadline (25s): it was still running 10s later",
	}
	own := map[string]string{
		"discover-command-serialized":    "the other application's find command waited 15s for the hanging one to begin, and it never began meanwhile: one application's discovery held up another's",
		"discover-command-escaping-hang": "the process the find command started (pid 4242) kept running after the command was stopped: stopping a command must stop what it started",
	}
	// The serialized witness fails by its own reason on every version: the
	// waiting command holds the one slot before any deadline matters.
	noDeadline := map[string]bool{"discover-command-escaping-hang": true}
	for name, msg := range own {
		l, err := plugins.LoadWitness(filepath.Join(checkoutRoot(t), "plugins", "broken", name, "witness.yaml"))
		b := l.Binding
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{"3.6.1", "2.14.21"} {
			if ok, why := b.FailsForTheRightReason("DISC-009", v, msg); !ok && (v == "3.6.1" || !noDeadline[name]) {
				t.Errorf("%s at %s: its own failure is not its reason: %s", name, v, why)
			}
		}
		for _, m := range deadline {
			if ok, _ := b.FailsForTheRightReason("DISC-009", "3.6.1", m); ok {
				t.Errorf("%s at 3.6.1 accepts a deadline message that says nothing of what it breaks: %s", name, m)
			}
			if ok, why := b.FailsForTheRightReason("DISC-009", "2.14.21", m); ok != noDeadline[name] {
				t.Errorf("%s at 2.14.21 (no deadline, as with the reference): accepts the deadline's message %t, want %t (%s)", name, ok, noDeadline[name], why)
			}
		}
	}
}
