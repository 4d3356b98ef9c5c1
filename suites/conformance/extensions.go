package conformance

import (
	"context"
	"fmt"
	"os"
	"path"
	"reflect"
	"slices"
	"strings"
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
	Needs:          []dsl.Ability{dsl.AbilityExtensions},
	NothingToJudge: withoutHealthTests,
	// The per-kind keys (resource.customizations.health.<group_Kind>) are
	// 2.1's (#6909); a script missed for an object created after it was
	// configured is #3744 (open).
	Upstream: []string{"argoproj/argo-cd#3744", "argoproj/argo-cd#6909"},
	Test: func(ctx context.Context, s *Suite) {
		judgeHealthTests(ctx, s, s.Extension(), func(extension.Kind) bool { return true })
	},
}

// judgeHealthTests judges every health test of ext's kinds that keep
// takes, live: all objects are put in applications first, then each is
// judged, so that their syncs overlap.
func judgeHealthTests(ctx context.Context, s *Suite, ext *extension.Extension, keep func(extension.Kind) bool) {
	ginkgo.GinkgoHelper()
	installed(ctx, s, ext)
	var cases []healthCase
	for _, k := range ext.Kinds {
		if !keep(k) {
			continue
		}
		for i, tc := range k.HealthTests {
			cases = append(cases, startHealthCase(ctx, s, ext, k, i, tc))
		}
	}
	for _, hc := range cases {
		hc.judge(ctx, s)
	}
}

// withoutHealthTests: EXT-001, EXT-004 and EXT-005 start from the objects
// of the health tests.
var withoutHealthTests = withoutCases(healthTests, "the extension has no health test (health_test.yaml beside a health.lua)")

// healthTests counts a kind's health tests.
func healthTests(k extension.Kind) int { return len(k.HealthTests) }

// withoutCases is a Check.NothingToJudge: why, when no kind of the
// extension has a case (cases counts a kind's).
func withoutCases(cases func(extension.Kind) int, why string) func(*extension.Extension) string {
	return func(e *extension.Extension) string {
		for _, k := range e.Kinds {
			if cases(k) > 0 {
				return ""
			}
		}
		return why
	}
}

// installed expects ext installed as an operator installs it, which the
// environment did before Argo CD started (environment.Config.Extensions):
// its CRDs established and its keys in argocd-cm. Not here and now: a CRD
// added while argocd-cm changes can crash v3.6.1's controller (its cluster
// cache, invalidated by the change, is written by the CRD's watch).
func installed(ctx context.Context, s *Suite, ext *extension.Extension) {
	ginkgo.GinkgoHelper()
	want, err := ext.ConfigMapData()
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	cm, err := s.Env.Clientset.CoreV1().ConfigMaps(s.Env.ArgoCDNamespace).Get(ctx, "argocd-cm", metav1.GetOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	diff, err := ext.InstalledIn(cm.Data)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(diff).To(gomega.BeEmpty(), "was the extension installed with Argo CD?")
	files, err := ext.CRDFiles()
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	var crds []string
	for i, data := range files {
		objs, err := kube.Decode(data)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "reading %s", ext.CRDs[i])
		for _, o := range objs {
			crds = append(crds, o.GetName())
		}
	}
	gomega.Expect(s.Env.Kube.WaitEstablished(ctx, s.Env.Timeouts.Settle, crds...)).To(gomega.Succeed())
	observe("%s: %d kinds, %d argocd-cm keys, CRDs %v", ext.Dir, len(ext.Kinds), len(want), crds)
}

// liveCase is a test's object live in an application of its own.
type liveCase struct {
	name   string // e.g. <group>/<Kind>/health_test.yaml, test N (inputPath)
	kind   extension.Kind
	obj    *unstructured.Unstructured
	app    string
	synced *dsl.Consequences
}

// healthCase is one health test under way.
type healthCase struct {
	liveCase
	want extension.Health
}

// startHealthCase begins a health test (startCase).
func startHealthCase(ctx context.Context, s *Suite, ext *extension.Extension, k extension.Kind, i int, tc extension.HealthTest) healthCase {
	ginkgo.GinkgoHelper()
	name := fmt.Sprintf("%s/health_test.yaml, test %d (%s)", k.Dir, i+1, tc.InputPath)
	gomega.Expect(tc.HealthStatus).NotTo(gomega.BeNil(), "%s gives no healthStatus", name)
	return healthCase{liveCase: startCase(ctx, s, ext, k, tc.InputPath, name), want: *tc.HealthStatus}
}

// startCase puts the object at rel (in the kind's folder), as given, in an
// application of its own (a plain folder: no plugin), and syncs it.
func startCase(ctx context.Context, s *Suite, ext *extension.Extension, k extension.Kind, rel, name string) liveCase {
	ginkgo.GinkgoHelper()
	return startObjectCase(ctx, s, k, caseObject(ext, k, rel, name), name)
}

// caseObject reads the object at rel in the kind's folder.
func caseObject(ext *extension.Extension, k extension.Kind, rel, name string) *unstructured.Unstructured {
	ginkgo.GinkgoHelper()
	root, err := os.OpenRoot(ext.Dir)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	defer root.Close()
	data, err := root.ReadFile(path.Join(k.Dir, rel))
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	obj := &unstructured.Unstructured{}
	gomega.Expect(yaml.Unmarshal(data, &obj.Object)).To(gomega.Succeed(), "%s: not an object", name)
	gk := obj.GroupVersionKind().GroupKind()
	gomega.Expect(k.Matches(gk)).To(gomega.BeTrue(), "%s: the object is a %s, which %s does not customize", name, gk, k.Dir)
	return obj
}

// startObjectCase puts obj in an application of its own and syncs it.
func startObjectCase(ctx context.Context, s *Suite, k extension.Kind, obj *unstructured.Unstructured, name string) liveCase {
	ginkgo.GinkgoHelper()
	lc := liveCase{name: name, kind: k, obj: obj}
	out, err := yaml.Marshal(normalised(lc.obj).Object)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	given := s.Given(ctx).NamePrefix("ext-"+strings.ToLower(obj.GetKind())).Source(fstest.MapFS{"object/object.yaml": {Data: out}}, "object")
	lc.app = given.Name()
	lc.synced = given.When().CreateApp().Sync(false).Then().Expect(dsl.NoActionError())
	return lc
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

// live waits for the sync and writes the test's status where the API
// server dropped it (a status subresource), as the kind's operator would. It
// returns the live object's resourceVersion once written: the version the
// controller must have seen before its health counts.
func (lc liveCase) live(s *Suite) string {
	ginkgo.GinkgoHelper()
	lc.synced.ExpectWithin(s.Env.Timeouts.AppSynced, dsl.OperationPhaseIs("Succeeded"))
	live, err := lc.synced.Live(lc.obj.GetAPIVersion(), lc.obj.GetKind(), lc.obj.GetName())
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s: the synced object", lc.name)
	if status, ok := lc.obj.Object["status"].(map[string]any); ok && !reflect.DeepEqual(live.Object["status"], status) {
		live, err = lc.synced.WriteStatus(live, status)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s: writing the test's status", lc.name)
	}
	return live.GetResourceVersion()
}

// node is the application's resource tree node of the case's object, once
// the tree shows it at version (an error until then).
func (lc liveCase) node(ctx context.Context, s *Suite, version string) (v1alpha1.ResourceNode, error) {
	app := lc.app
	tree, err := s.Env.Apps.ResourceTree(ctx, &applicationpkg.ResourcesQuery{ApplicationName: &app})
	if err != nil {
		return v1alpha1.ResourceNode{}, err
	}
	gk := lc.obj.GroupVersionKind().GroupKind()
	i := slices.IndexFunc(tree.Nodes, func(n v1alpha1.ResourceNode) bool {
		return n.Group == gk.Group && n.Kind == gk.Kind && n.Name == lc.obj.GetName()
	})
	switch {
	case i < 0:
		return v1alpha1.ResourceNode{}, fmt.Errorf("%s: the resource tree holds no %s %s", lc.name, gk.Kind, lc.obj.GetName())
	case tree.Nodes[i].ResourceVersion != version:
		return v1alpha1.ResourceNode{}, fmt.Errorf("%s: the resource tree shows %s %s at resourceVersion %s, not yet %s (the test's status written)",
			lc.name, gk.Kind, lc.obj.GetName(), tree.Nodes[i].ResourceVersion, version)
	}
	return tree.Nodes[i], nil
}

// judge expects the tree's health to be the test's. It waits until the tree
// shows the object at the version live left (the controller's watch has
// delivered it, and health is computed with it), then judges once: no
// health that comes later can be the script's answer to this object.
func (hc healthCase) judge(ctx context.Context, s *Suite) {
	ginkgo.GinkgoHelper()
	ginkgo.By("health: " + hc.name)
	version := hc.live(s)
	app := hc.app
	var seen *v1alpha1.HealthStatus
	gomega.Eventually(ctx, func() error {
		// A change of message alone may not requeue the application: ask.
		_, _, _ = s.Env.RefreshApp(ctx, app, string(v1alpha1.RefreshTypeNormal), 10*time.Second)
		n, err := hc.node(ctx, s, version)
		if err != nil {
			return err
		}
		if n.Health == nil {
			return fmt.Errorf("%s: the resource tree shows no health for %s %s", hc.name, hc.kind.Kind, hc.obj.GetName())
		}
		seen = n.Health
		if string(seen.Status) != hc.want.Status || seen.Message != hc.want.Message {
			return gomega.StopTrying(fmt.Sprintf("%s: the resource tree shows %s %q, the test expects %s %q", hc.name, seen.Status, seen.Message, hc.want.Status, hc.want.Message))
		}
		return nil
	}).WithTimeout(s.Env.Timeouts.Refresh).WithPolling(time.Second).Should(gomega.Succeed())
	observe("%s: %s %q", hc.name, seen.Status, seen.Message)
}
