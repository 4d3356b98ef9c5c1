package conformance

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
)

// reconfigureArgoCD sets the binding's RBAC settings before its first
// check and takes them back after its last, Ctrl-C included. Its
// repo-server and controller settings are given spec by spec (settle).
func reconfigureArgoCD(cfg Config, b Binding) {
	if len(b.RBACSettings) == 0 {
		return
	}
	ginkgo.BeforeAll(func(ctx ginkgo.SpecContext) {
		withRBACSettings(ctx, cfg.Env(), b.RBACSettings, b.Name)
	}, ginkgo.NodeTimeout(time.Minute))
}

// settle gives the repo-server and the controller the settings a spec
// needs before its check: the binding's, with the check's own over them
// (its repo-server settings; its deadline, on the controller and on
// argocd-server, as a user shortens both in argocd-cmd-params-cm). A
// component that runs with them already is not restarted (the runtimes
// leave it), and nothing is taken back after the spec: the next spec
// settles what it needs, and restoreArgoCD gives Argo CD its own settings
// back once the tree has run. So specs that need the same settings in a
// row cost no restart, and one binding's settings followed by another's
// cost one restart, not a restore and a set. The components are restarted
// side by side: each waits for its own start. A failure here is the
// harness's, never a check's outcome. It returns the deadline the check
// runs under (0: Argo CD's own), and whether argocd-server runs under it
// too. With withDeadline false, the check's Deadline is left out: its
// set-up runs under the environment's (Check.DeadlineAfterSetUp).
func settle(ctx context.Context, env *dsl.Env, b Binding, c Check, withDeadline bool) (time.Duration, bool) {
	repo := mergeSettings(c.RepoServer, b.RepoServerSettings)
	ctrl, srv, deadline := b.ControllerSettings, []string(nil), time.Duration(0)
	if withDeadline && c.Deadline > 0 && env.Controller != nil {
		secs := strconv.Itoa(int(c.Deadline.Seconds()))
		ctrl = mergeSettings(ctrl, []string{argocd.ControllerRepoServerTimeoutEnv + "=" + secs})
		if !c.ServerKeepsDeadline {
			srv = []string{argocd.ServerRepoServerTimeoutEnv + "=" + secs}
		}
		deadline = c.Deadline
	}
	who := c.ID + " of " + b.Name
	if env.RepoServer == nil && len(repo) > 0 {
		ginkgo.Fail(fmt.Sprintf("%s changes the repo-server's settings (%v), which this runtime cannot do", who, repo))
	}
	if env.Controller == nil && len(ctrl) > 0 {
		ginkgo.Fail(fmt.Sprintf("%s changes the controller's settings (%v), which this runtime cannot do", who, ctrl))
	}
	// argocd-server's deadline bounds only how long its own calls wait
	// (a hard refresh's app details): where it cannot be set, a check
	// waits longer, and judges the same.
	var restarts []restart
	if env.RepoServer != nil {
		restarts = append(restarts, restart{"repo-server", repo, env.RepoServer.ReconfigureRepoServer})
	}
	if env.Controller != nil {
		restarts = append(restarts, restart{"controller", ctrl, env.Controller.ReconfigureController})
	}
	if env.Server != nil {
		restarts = append(restarts, restart{"server", srv, env.Server.ReconfigureServer})
	}
	if env.Shelf != nil {
		gomega.Expect(env.Shelf.SetAside(b.aside)).To(gomega.Succeed(), "setting the other witnesses' plugins aside for %s", who)
	}
	errs := make([]error, len(restarts))
	var wg sync.WaitGroup
	for n, r := range restarts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[n] = r.to(ctx, r.settings)
		}()
	}
	wg.Wait()
	for n, r := range restarts {
		gomega.Expect(errs[n]).To(gomega.Succeed(), "giving the %s %v for %s", r.what, r.settings, who)
	}
	return deadline, srv != nil && env.Server != nil
}

// othersAside lists the sockets set aside while b's checks run: those of
// every witness's plugins that b does not use, nor a binding that is no
// witness (the reference plugins, a certified subject). A witness is a
// guest of the self-test, not part of the Argo CD a check describes: out
// of sight, it neither slows discovery (the repo-server asks every socket
// in name order) nor can claim another binding's application.
func othersAside(all []Binding, b Binding) []string {
	keep := map[string]bool{}
	for _, o := range all {
		if !o.Witness || o.Name == b.Name {
			for _, sub := range o.Subjects {
				keep[sub.Plugin.SocketName()] = true
			}
		}
	}
	var out []string
	for _, o := range all {
		for _, sub := range o.Subjects {
			if n := sub.Plugin.SocketName(); o.Witness && sub.Plugin.Name != "" && !keep[n] && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// restart is one component settle reconfigures.
type restart struct {
	what     string
	settings []string
	to       func(context.Context, []string) error
}

// restoreArgoCD gives the repo-server and the controller their own
// settings again once the tree has run (Ctrl-C included): an environment
// that is kept (env up, an existing cluster) must not keep a witness's.
func restoreArgoCD(ctx context.Context, env *dsl.Env) error {
	if env == nil {
		return nil
	}
	var errs []error
	if env.Shelf != nil {
		if err := env.Shelf.SetAside(nil); err != nil {
			errs = append(errs, fmt.Errorf("putting every plugin back in the repo-server's sight: %w", err))
		}
	}
	if env.RepoServer != nil {
		if err := env.RepoServer.ReconfigureRepoServer(ctx, nil); err != nil {
			errs = append(errs, fmt.Errorf("giving the repo-server its own settings back: %w", err))
		}
	}
	if env.Controller != nil {
		if err := env.Controller.ReconfigureController(ctx, nil); err != nil {
			errs = append(errs, fmt.Errorf("giving the controller its own settings back: %w", err))
		}
	}
	if env.Server != nil {
		if err := env.Server.ReconfigureServer(ctx, nil); err != nil {
			errs = append(errs, fmt.Errorf("giving argocd-server its own settings back: %w", err))
		}
	}
	return errors.Join(errs...)
}

// mergeSettings is base with over's values winning, by name.
func mergeSettings(base, over []string) []string {
	name := func(kv string) string { n, _, _ := strings.Cut(kv, "="); return n }
	out := slices.DeleteFunc(slices.Clone(base), func(kv string) bool {
		return slices.ContainsFunc(over, func(o string) bool { return name(o) == name(kv) })
	})
	return append(out, over...)
}

// RBACConfigMap holds Argo CD's RBAC policy (argocd-rbac-cm).
const RBACConfigMap = "argocd-rbac-cm"

// withRBACSettings sets keys of argocd-rbac-cm (policy.default, say) and
// puts back what was there once the running node's scope ends: a policy
// left behind would judge every later check of the run. argocd-server
// reloads its policy from the ConfigMap's informer: a check that depends on
// a policy waits for a request it allows to pass.
func withRBACSettings(ctx context.Context, env *dsl.Env, settings map[string]string, who string) {
	var before map[string]string
	gomega.Expect(updateRBAC(ctx, env, func(data map[string]string) {
		before = maps.Clone(data)
		maps.Copy(data, settings)
	})).To(gomega.Succeed(), "setting %v in %s for %s", slices.Sorted(maps.Keys(settings)), RBACConfigMap, who)
	ginkgo.DeferCleanup(func(ctx ginkgo.SpecContext) {
		gomega.Expect(updateRBAC(ctx, env, func(data map[string]string) {
			for k := range settings {
				if v, ok := before[k]; ok {
					data[k] = v
				} else {
					delete(data, k)
				}
			}
		})).To(gomega.Succeed(), "restoring %s after %s", RBACConfigMap, who)
	}, ginkgo.NodeTimeout(time.Minute))
}

// updateRBAC changes argocd-rbac-cm's data with change, read afresh and
// written again on a conflict (argocd-server does not write it, but a
// witness's setting and a check's policy may meet).
func updateRBAC(ctx context.Context, env *dsl.Env, change func(map[string]string)) error {
	cms := env.Clientset.CoreV1().ConfigMaps(env.ArgoCDNamespace)
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cm, err := cms.Get(ctx, RBACConfigMap, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		change(cm.Data)
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		return err
	})
}
