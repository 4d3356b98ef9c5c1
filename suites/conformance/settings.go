package conformance

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
)

// reconfigureArgoCD sets the binding's repo-server, controller and RBAC
// settings before its first check and takes them back after its last,
// Ctrl-C included.
func reconfigureArgoCD(cfg Config, b Binding) {
	ginkgo.BeforeAll(func(ctx ginkgo.SpecContext) {
		if len(b.RBACSettings) > 0 {
			withRBACSettings(ctx, cfg.Env(), b.RBACSettings, b.Name)
		}
		if len(b.RepoServerSettings) > 0 {
			withRepoServerSettings(ctx, cfg.Env(), b.RepoServerSettings, nil, b.Name)
		}
		if len(b.ControllerSettings) > 0 {
			withControllerSettings(ctx, cfg.Env(), b.ControllerSettings, nil, b.Name)
		}
	}, ginkgo.NodeTimeout(5*time.Minute))
}

// withControllerSettings restarts the controller with settings, and with
// restore (nil: its own) once the running node's scope ends.
func withControllerSettings(ctx context.Context, env *dsl.Env, settings, restore []string, who string) {
	if env.Controller == nil {
		ginkgo.Fail(fmt.Sprintf("%s changes the controller's settings (%v), which this runtime cannot do", who, settings))
	}
	ginkgo.DeferCleanup(func(ctx ginkgo.SpecContext) {
		gomega.Expect(env.Controller.ReconfigureController(ctx, restore)).To(gomega.Succeed(), "restoring the controller's settings after %s", who)
	}, ginkgo.NodeTimeout(5*time.Minute))
	gomega.Expect(env.Controller.ReconfigureController(ctx, settings)).To(gomega.Succeed(), "setting %v on the controller for %s", settings, who)
}

// withRepoServerSettings restarts the repo-server with settings, and with
// restore once the running node's scope ends (DeferCleanup). A failure here
// is the harness's, never a check's outcome.
func withRepoServerSettings(ctx context.Context, env *dsl.Env, settings, restore []string, who string) {
	if env.RepoServer == nil {
		ginkgo.Fail(fmt.Sprintf("%s changes the repo-server's settings (%v), which this runtime cannot do", who, settings))
	}
	ginkgo.DeferCleanup(func(ctx ginkgo.SpecContext) {
		gomega.Expect(env.RepoServer.ReconfigureRepoServer(ctx, restore)).To(gomega.Succeed(), "restoring the repo-server's settings after %s", who)
	}, ginkgo.NodeTimeout(5*time.Minute))
	gomega.Expect(env.RepoServer.ReconfigureRepoServer(ctx, settings)).To(gomega.Succeed(), "setting %v on the repo-server for %s", settings, who)
}

// underSettings runs a check under its repo-server settings, the binding's
// over them, and gives the repo-server the binding's alone after it.
func underSettings(ctx context.Context, env *dsl.Env, b Binding, c Check) {
	withRepoServerSettings(ctx, env, mergeSettings(c.RepoServer, b.RepoServerSettings), b.RepoServerSettings, c.ID)
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
