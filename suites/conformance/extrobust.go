package conformance

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/extension"
)

// EXT-004: every object of a kind starts without a status (its operator
// writes one later), whatever the author's tests cover. A health script
// that raises on it leaves the resource without health and the whole
// application with a ComparisonError until the operator catches up.
var extNewObject = Check{
	ID:    "EXT-004",
	Title: "an extension's health script gives a health status to an object of its kind whose operator has written no status yet",
	Area:  Extensions, Level: Core, Versions: ">=2.1.0", Roles: []Role{RoleExtension},
	Needs:          []dsl.Ability{dsl.AbilityExtensions},
	NothingToJudge: withoutHealthTests,
	Test: func(ctx context.Context, s *Suite) {
		ext, kinds := healthKinds(ctx, s)
		var cases []liveCase
		for _, k := range kinds {
			obj := caseObject(ext, k, k.HealthTests[0].InputPath, k.Dir)
			unstructured.RemoveNestedField(obj.Object, "status")
			cases = append(cases, startObjectCase(ctx, s, k, obj, fmt.Sprintf("%s, %s without its status", k.Dir, k.HealthTests[0].InputPath)))
		}
		for _, c := range cases {
			ginkgo.By("health of a new object: " + c.name)
			h, scriptErr := c.healthOrError(ctx, s, c.live(s))
			gomega.Expect(h).NotTo(gomega.BeNil(), "%s: Argo CD shows no health for it (the script returned nothing)", c.name)
			gomega.Expect(scriptErr).To(gomega.BeEmpty(), "%s: the health script failed on it (Argo CD shows %s %q and the application's error): %s", c.name, h.Status, h.Message, scriptErr)
			gomega.Expect(healthStatuses).To(gomega.ContainElement(string(h.Status)), "%s: the script gives the status %q, which is none of Argo CD's (%s)",
				c.name, h.Status, strings.Join(healthStatuses, ", "))
			observe("%s: %s %q", c.name, h.Status, h.Message)
		}
	},
}

// healthKinds expects the run's extension installed and returns it with
// its kinds that have health tests: where EXT-004 and EXT-005 start.
func healthKinds(ctx context.Context, s *Suite) (*extension.Extension, []extension.Kind) {
	ginkgo.GinkgoHelper()
	ext := s.Extension()
	installed(ctx, s, ext)
	return ext, slices.DeleteFunc(slices.Clone(ext.Kinds), func(k extension.Kind) bool { return len(k.HealthTests) == 0 })
}

// healthStatuses are the statuses Argo CD's health model has.
var healthStatuses = []string{"Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown"}

// EXT-005: Argo CD stops a health script after one second (util/lua's
// context), and a script stopped so gives no health at all: what an
// operator's status can hold (long messages, types the CRD does not pin
// down) must not run it that long. A script may raise on a status it
// cannot read; Argo CD then shows the error (ComparisonError), which
// says what is wrong, unlike a timeout.
var extHostile = Check{
	ID:    "EXT-005",
	Title: "an extension's health script ends within Argo CD's one-second bound on statuses it does not expect: long free text, a status of the wrong type, lists that are not lists",
	Area:  Extensions, Level: Core, Versions: ">=2.1.0", Roles: []Role{RoleExtension},
	Needs:          []dsl.Ability{dsl.AbilityExtensions},
	NothingToJudge: withoutHealthTests,
	Test: func(ctx context.Context, s *Suite) {
		ext, kinds := healthKinds(ctx, s)
		var cases []liveCase
		for _, k := range kinds {
			// The first test whose object has a status: its shape is the
			// operator's.
			base := caseObject(ext, k, k.HealthTests[0].InputPath, k.Dir)
			for _, tc := range k.HealthTests {
				if o := caseObject(ext, k, tc.InputPath, k.Dir); o.Object["status"] != nil {
					base = o
					break
				}
			}
			for _, v := range hostileVariants(base) {
				// Applied without its status, written after as the operator
				// would: kubectl's last-applied annotation would hold a long
				// status too, and annotations are limited to 256 KiB.
				bare := v.obj.DeepCopy()
				unstructured.RemoveNestedField(bare.Object, "status")
				c := startObjectCase(ctx, s, k, bare, fmt.Sprintf("%s, %s", k.Dir, v.what))
				c.obj = v.obj
				cases = append(cases, c)
			}
		}
		judged := 0
		defer func() {
			if judged == 0 && len(cases) > 0 {
				observe("no hostile status could be written: the CRDs' schemas rule them all out, so the script cannot meet them")
			}
		}()
		for _, c := range cases {
			ginkgo.By("hostile status: " + c.name)
			version, refused := c.liveUnlessRefused(ctx, s)
			if refused != "" {
				observe("%s: not judged, the API server refuses it: %s", c.name, refused)
				continue
			}
			judged++
			h, scriptErr := c.healthOrError(ctx, s, version)
			// gopher-lua's error when Argo CD's context ends the script, in
			// the application's error (the health's message may be the
			// object's own text).
			gomega.Expect(scriptErr).NotTo(gomega.ContainSubstring("deadline exceeded"), "%s: the health script ran past Argo CD's one-second bound (Argo CD shows: %s)", c.name, clip(scriptErr))
			switch {
			case h == nil:
				observe("%s: no health (the script returned nothing)", c.name)
			case scriptErr != "":
				observe("%s: the script raised, and Argo CD says so: %s", c.name, clip(h.Message))
			default:
				observe("%s: %s %q", c.name, h.Status, clip(h.Message))
			}
		}
	},
}

// variant is a hostile copy of a test's object.
type variant struct {
	what string
	obj  *unstructured.Unstructured
}

// hugeText is what each free text of a hostile status grows to: the most
// Kubernetes allows a condition's message (metav1.Condition), long enough
// that a script that walks it once per character read overruns.
const hugeText = 32 << 10

// hostileVariants are copies of base with a status its script may not
// expect: its free text (string values with a space: messages, not enum
// values such as "True") grown to hugeText bytes each, the status a string, and its
// lists numbers. A variant that would change nothing is left out.
func hostileVariants(base *unstructured.Unstructured) []variant {
	status, _ := base.Object["status"].(map[string]any)
	with := func(what string, st any) variant {
		obj := base.DeepCopy()
		obj.Object["status"] = st
		return variant{what: what, obj: obj}
	}
	var out []variant
	if n := countText(status); n > 0 {
		long := strings.Repeat("x", hugeText-1)
		out = append(out, with(fmt.Sprintf("its status's free text grown to %d bytes a string (%d of them)", hugeText, n), rewrite(status, func(v any) (any, bool) {
			if s, ok := v.(string); ok && strings.Contains(s, " ") {
				return (s + " " + long)[:hugeText], true
			}
			return nil, false
		})))
	}
	out = append(out, with("its status a string", "hostile"))
	if lists := rewrite(status, func(v any) (any, bool) {
		if _, ok := v.([]any); ok {
			return int64(42), true
		}
		return nil, false
	}); status != nil && !reflect.DeepEqual(lists, any(status)) {
		out = append(out, with("its status's lists numbers", lists))
	}
	return out
}

// countText counts the free-text strings in v.
func countText(v any) int {
	n := 0
	rewrite(v, func(x any) (any, bool) {
		if s, ok := x.(string); ok && strings.Contains(s, " ") {
			n++
		}
		return nil, false
	})
	return n
}

// rewrite is a copy of v where f replaces what it returns true for (not
// descending into a replaced value).
func rewrite(v any, f func(any) (any, bool)) any {
	if r, ok := f(v); ok {
		return r
	}
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = rewrite(x, f)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = rewrite(x, f)
		}
		return out
	}
	return v
}

// liveUnlessRefused is live for a status the API server may refuse (one
// its CRD's schema rules out): it returns the object's version once synced
// (without a status: that must succeed) and its status written, or why the
// API server refused the status (Invalid; any other error fails).
func (lc liveCase) liveUnlessRefused(ctx context.Context, s *Suite) (version, refused string) {
	ginkgo.GinkgoHelper()
	lc.synced.ExpectWithin(s.Env.Timeouts.AppSynced, dsl.OperationPhaseIs("Succeeded"))
	status := lc.obj.Object["status"]
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		live, err := lc.synced.Live(lc.obj.GetAPIVersion(), lc.obj.GetKind(), lc.obj.GetName())
		if err != nil {
			return err
		}
		if reflect.DeepEqual(live.Object["status"], status) {
			version = live.GetResourceVersion()
			return nil
		}
		written, err := lc.synced.WriteStatus(live, status)
		if err == nil {
			version = written.GetResourceVersion()
		}
		return err
	})
	if apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) {
		return "", err.Error()
	}
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s: writing the status", lc.name)
	return version, ""
}

// healthOrError is health (nil: none, once a reconcile after seeing none
// has ended) and, when it is Unknown or none, the application's error of it
// ("" for none): what tells a script that failed (Argo CD shows its
// error as the message and sets a ComparisonError) from one that answered
// Unknown. The condition is written after the tree, so an Unknown is judged
// once a reconcile has ended after it was seen.
func (lc liveCase) healthOrError(ctx context.Context, s *Suite, version string) (*v1alpha1.HealthStatus, string) {
	ginkgo.GinkgoHelper()
	app := lc.app
	var health *v1alpha1.HealthStatus
	var scriptErr string
	var unknownSince *time.Time
	gomega.Eventually(ctx, func() error {
		a, answered, err := s.Env.RefreshApp(ctx, app, string(v1alpha1.RefreshTypeNormal), 10*time.Second)
		if err != nil {
			return err
		}
		if !answered {
			return fmt.Errorf("a refresh of %s was not answered within 10s", app)
		}
		n, err := lc.node(ctx, s, version)
		if err != nil {
			return err
		}
		health = n.Health
		if health != nil && health.Status != "Unknown" {
			return nil
		}
		if i := slices.IndexFunc(a.Status.Conditions, func(c v1alpha1.ApplicationCondition) bool {
			return c.Type == v1alpha1.ApplicationConditionComparisonError && strings.Contains(c.Message, "health")
		}); i >= 0 {
			scriptErr = a.Status.Conditions[i].Message
			return nil
		}
		switch reconciled := a.Status.ReconciledAt; {
		case unknownSince == nil:
			now := time.Now()
			unknownSince = &now
		case reconciled != nil && reconciled.After(unknownSince.Add(time.Second)):
			return nil // a reconcile ended since: no error, or no health is the answer
		}
		return fmt.Errorf("%s: the resource tree shows %v; waiting for a reconcile after it to say whether the script failed", lc.name, health)
	}).WithTimeout(s.Env.Timeouts.Refresh).WithPolling(time.Second).Should(gomega.Succeed())
	return health, scriptErr
}
