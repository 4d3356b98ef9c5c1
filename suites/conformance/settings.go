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
// puts back what was there once the running node's scope ends. argocd-server
// reloads its policy from the ConfigMap's informer: a check that depends on
// a policy waits for a request it allows to pass.
func withRBACSettings(ctx context.Context, env *dsl.Env, settings map[string]string, who string) {
	before := updateRBAC(ctx, env, func(data map[string]string) { maps.Copy(data, settings) }, who)
	ginkgo.DeferCleanup(func(ctx ginkgo.SpecContext) {
		updateRBAC(ctx, env, func(data map[string]string) {
			for k := range settings {
				if v, ok := before[k]; ok {
					data[k] = v
				} else {
					delete(data, k)
				}
			}
		}, "restoring "+RBACConfigMap+" after "+who)
	}, ginkgo.NodeTimeout(time.Minute))
}

// updateRBAC changes argocd-rbac-cm's data with change, and returns the data
// as it was.
func updateRBAC(ctx context.Context, env *dsl.Env, change func(map[string]string), who string) map[string]string {
	ginkgo.GinkgoHelper()
	cms := env.Clientset.CoreV1().ConfigMaps(env.ArgoCDNamespace)
	cm, err := cms.Get(ctx, RBACConfigMap, metav1.GetOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s: reading %s", who, RBACConfigMap)
	before := maps.Clone(cm.Data)
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	change(cm.Data)
	_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s: updating %s (%v)", who, RBACConfigMap, slices.Sorted(maps.Keys(cm.Data)))
	return before
}
