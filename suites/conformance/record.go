package conformance

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/plugins/contract"
)

// The contract roles' plugins render the application folder and a record of
// their working copy (plugins/contract). Checks read that record from the
// manifests Argo CD generates (the API's manifests endpoint): what the plugin
// found is judged without a sync, which only the checks about syncing need.

// renderedBy creates c's application and expects the plugin of role to
// render it: source type Plugin (not Argo CD's own directory or Kustomize
// type), and a record naming that plugin, not another one of the
// environment.
func renderedBy(s *Suite, c *dsl.Context, role Role) (*dsl.Consequences, contract.Record) {
	ginkgo.GinkgoHelper()
	return rendered(s, c.When().CreateApp().Then().Expect(dsl.NoActionError()), role)
}

// rendered expects the application cons created to be rendered by the
// plugin of role, as renderedBy says.
func rendered(s *Suite, cons *dsl.Consequences, role Role) (*dsl.Consequences, contract.Record) {
	ginkgo.GinkgoHelper()
	cons.ExpectWithin(s.Env.Timeouts.AppSynced, dsl.SourceTypeIs(v1alpha1.ApplicationSourceTypePlugin))
	rec := recordOf(cons)
	want := s.Plugin(role).Name
	gomega.Expect(rec.Plugin).To(gomega.Equal(want), "the application was rendered by %q, want the %s plugin %q", rec.Plugin, role, want)
	return cons, rec
}

// notRendered creates c's application and expects Argo CD's directory type:
// no plugin matched it.
func notRendered(s *Suite, c *dsl.Context) {
	ginkgo.GinkgoHelper()
	c.When().CreateApp().
		Then().Expect(dsl.NoActionError()).
		ExpectWithin(s.Env.Timeouts.AppSynced, dsl.SourceTypeIs(v1alpha1.ApplicationSourceTypeDirectory))
}

// recordOf reads the record from the application's generated manifests.
func recordOf(cons *dsl.Consequences) contract.Record {
	ginkgo.GinkgoHelper()
	manifests, err := cons.Manifests(false)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "reading the generated manifests")
	rec, err := findRecord(manifests)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return rec
}

// findRecord decodes the record ConfigMap among manifests.
func findRecord(manifests []string) (contract.Record, error) {
	for _, m := range manifests {
		var obj unstructured.Unstructured
		if err := json.Unmarshal([]byte(m), &obj.Object); err != nil || obj.GetKind() != "ConfigMap" || obj.GetName() != contract.RecordConfigMap {
			continue
		}
		b64, _, _ := unstructured.NestedString(obj.Object, "binaryData", contract.KeyRecord)
		data, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return contract.Record{}, fmt.Errorf("ConfigMap %s: %s is not base64: %w", contract.RecordConfigMap, contract.KeyRecord, err)
		}
		var rec contract.Record
		if err := json.Unmarshal(data, &rec); err != nil {
			return contract.Record{}, fmt.Errorf("ConfigMap %s: %s is not a record: %w", contract.RecordConfigMap, contract.KeyRecord, err)
		}
		return rec, nil
	}
	return contract.Record{}, fmt.Errorf("no ConfigMap %s among the %d generated manifests: the plugin recorded nothing", contract.RecordConfigMap, len(manifests))
}

// manifestNames lists Kind/name of manifests, for messages and checks.
func manifestNames(manifests []string) []string {
	var out []string
	for _, m := range manifests {
		var obj unstructured.Unstructured
		if json.Unmarshal([]byte(m), &obj.Object) == nil {
			out = append(out, obj.GetKind()+"/"+obj.GetName())
		}
	}
	return out
}
