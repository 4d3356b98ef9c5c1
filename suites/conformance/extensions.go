package conformance

import (
	"context"
	"fmt"
	"os"
	"path"
	"reflect"
	"slices"
	"testing/fstest"
	"time"

	applicationpkg "github.com/argoproj/argo-cd/v3/pkg/apiclient/application"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/extension"
	"github.com/cmp-conformance/cmp-conformance/fixtures/kube"
)

// EXT-001: an extension's health tests are Argo CD's own format, which its
// util/lua unit tests run in a Lua VM with the open libraries; what a user
// sees is the resource tree of a live application, computed by the
// controller of the version they run, from argocd-cm, without them.
var extHealth = Check{
	ID:    "EXT-001",
	Title: "each health test of an extension gives its status and message for the live object, as the application's resource tree shows it",
	Area:  Extensions, Level: Core, Versions: ">=2.1.0", Roles: []Role{RoleExtension},
	Needs: []dsl.Ability{dsl.AbilityExtensions},
	// The per-kind keys (resource.customizations.health.<group_Kind>) are
	// 2.1's (#6909); a script missed for an object created after it was
	// configured is #3744 (open).
	Upstream: []string{"argoproj/argo-cd#3744", "argoproj/argo-cd#6909"},
	Test: func(ctx context.Context, s *Suite) {
		ext := s.Extension()
		installed(ctx, s, ext)
		var cases []healthCase
		for _, k := range ext.Kinds {
			for i, tc := range k.HealthTests {
				cases = append(cases, startHealthCase(ctx, s, ext, k, i, tc))
			}
		}
		gomega.Expect(cases).NotTo(gomega.BeEmpty(), "the extension has no health test (health_test.yaml beside a health.lua)")
		for _, hc := range cases {
			hc.judge(ctx, s)
		}
	},
}

// installed expects ext installed as an operator installs it, which the
// environment did before Argo CD started (environment.Config.Extensions):
// its CRDs established and its keys in argocd-cm. Not here and now: a CRD
// added while argocd-cm changes can crash v3.6.1's controller (its cluster
// cache, invalidated by the change, is written by the CRD's watch).
func installed(ctx context.Context, s *Suite, ext *extension.Extension) {
	ginkgo.GinkgoHelper()
	want, err := ext.ConfigMapData(nil)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	cm, err := s.Env.Clientset.CoreV1().ConfigMaps(s.Env.ArgoCDNamespace).Get(ctx, "argocd-cm", metav1.GetOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	for k, v := range want {
		gomega.Expect(cm.Data[k]).To(gomega.Equal(v), "argocd-cm %s is not the extension's: was it installed with Argo CD?", k)
	}
	root, err := os.OpenRoot(ext.Dir)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	defer root.Close()
	var crds []string
	for _, f := range ext.CRDs {
		data, err := root.ReadFile(f)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		objs, err := kube.Decode(data)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "reading %s", f)
		for _, o := range objs {
			crds = append(crds, o.GetName())
		}
	}
	gomega.Expect(s.Env.Kube.WaitEstablished(ctx, s.Env.Timeouts.Settle, crds...)).To(gomega.Succeed())
	observe("%s: %d kinds, %d argocd-cm keys, CRDs %v", ext.Dir, len(ext.Kinds), len(want), crds)
}

// healthCase is one health test under way: its application synced, the
// object's status to write, the health to see.
type healthCase struct {
	name   string // <group>/<Kind>/health_test.yaml, test N (inputPath)
	app    string
	kind   extension.Kind
	obj    *unstructured.Unstructured
	want   extension.Health
	synced *dsl.Consequences
}

// startHealthCase puts the test's object, as given, in an application of
// its own (a plain folder: no plugin), and syncs it.
func startHealthCase(ctx context.Context, s *Suite, ext *extension.Extension, k extension.Kind, i int, tc extension.HealthTest) healthCase {
	ginkgo.GinkgoHelper()
	hc := healthCase{name: fmt.Sprintf("%s/health_test.yaml, test %d (%s)", k.Dir, i+1, tc.InputPath), kind: k}
	gomega.Expect(tc.HealthStatus).NotTo(gomega.BeNil(), "%s gives no healthStatus", hc.name)
	hc.want = *tc.HealthStatus
	root, err := os.OpenRoot(ext.Dir)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	defer root.Close()
	data, err := root.ReadFile(path.Join(k.Dir, tc.InputPath))
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	hc.obj = &unstructured.Unstructured{}
	gomega.Expect(yaml.Unmarshal(data, &hc.obj.Object)).To(gomega.Succeed(), "%s: not an object", hc.name)
	gomega.Expect(hc.obj.GetKind()).To(gomega.Equal(k.Kind), "%s: the object is a %s", hc.name, hc.obj.GetKind())
	manifest := normalised(hc.obj)
	out, err := yaml.Marshal(manifest.Object)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	src := fstest.MapFS{"object/object.yaml": {Data: out}}
	given := s.Given(ctx).NamePrefix("ext-health").Source(src, "object")
	hc.app = given.Name()
	hc.synced = given.
		When().CreateApp().Sync(false).
		Then().Expect(dsl.NoActionError())
	return hc
}

// normalised is obj as it can be applied: in the application's namespace,
// without what the API server sets.
func normalised(obj *unstructured.Unstructured) *unstructured.Unstructured {
	out := obj.DeepCopy()
	for _, f := range [][]string{{"metadata", "namespace"}, {"metadata", "resourceVersion"}, {"metadata", "uid"},
		{"metadata", "creationTimestamp"}, {"metadata", "generation"}, {"metadata", "managedFields"}} {
		unstructured.RemoveNestedField(out.Object, f...)
	}
	return out
}

// judge waits for the sync, writes the test's status where the API server
// dropped it (a status subresource), and expects the tree's health.
func (hc healthCase) judge(ctx context.Context, s *Suite) {
	ginkgo.GinkgoHelper()
	ginkgo.By("health: " + hc.name)
	hc.synced.ExpectWithin(s.Env.Timeouts.AppSynced, dsl.OperationPhaseIs("Succeeded"))
	live, err := hc.synced.Live(hc.obj.GetAPIVersion(), hc.obj.GetKind(), hc.obj.GetName())
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s: the synced object", hc.name)
	if status, ok := hc.obj.Object["status"].(map[string]any); ok && !reflect.DeepEqual(live.Object["status"], status) {
		// What an operator writes: the test's status, as given.
		gomega.Expect(hc.synced.WriteStatus(live, status)).To(gomega.Succeed(), "%s: writing the test's status", hc.name)
	}
	app := hc.app
	var seen *v1alpha1.HealthStatus
	gomega.Eventually(ctx, func() error {
		// A change of message alone may not requeue the application: ask.
		normal := string(v1alpha1.RefreshTypeNormal)
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, _ = s.Env.Apps.Get(rctx, &applicationpkg.ApplicationQuery{Name: &app, Refresh: &normal})
		cancel()
		tree, err := s.Env.Apps.ResourceTree(ctx, &applicationpkg.ResourcesQuery{ApplicationName: &app})
		if err != nil {
			return err
		}
		i := slices.IndexFunc(tree.Nodes, func(n v1alpha1.ResourceNode) bool {
			return n.Group == hc.kind.Group && n.Kind == hc.kind.Kind && n.Name == hc.obj.GetName()
		})
		if i < 0 || tree.Nodes[i].Health == nil {
			return fmt.Errorf("%s: the resource tree shows no health for %s %s", hc.name, hc.kind.Kind, hc.obj.GetName())
		}
		seen = tree.Nodes[i].Health
		if string(seen.Status) != hc.want.Status || seen.Message != hc.want.Message {
			return fmt.Errorf("%s: the resource tree shows %s %q, the test expects %s %q", hc.name, seen.Status, seen.Message, hc.want.Status, hc.want.Message)
		}
		return nil
	}).WithTimeout(s.Env.Timeouts.Refresh).WithPolling(time.Second).Should(gomega.Succeed())
	observe("%s: %s %q", hc.name, seen.Status, seen.Message)
}
