package conformance

import (
	"context"
	"fmt"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
)

// The output family: what Argo CD makes of what a plugin prints. The
// contract is that the manifests a plugin prints are the application's
// (Argo CD docs: "the generate command must print a valid Kubernetes YAML or
// JSON object stream to stdout"); nothing printed may be lost on the way.

// lastLineBytes is the length of the output's final line in outLastLine: a
// multiple of 4096, the size of the buffered reader Argo CD splits plugin
// output with, where a final unterminated line is dropped (helm/helm#32506,
// the same k8s.io/apimachinery reader).
const lastLineBytes = 4096

// lastLineFile is a ConfigMap whose final line ("  tail: xxx...") is
// lastLineBytes long. Named to sort last, so the plain plugin prints it last.
func lastLineFile() (data []byte, tail string) {
	prefix := "  tail: "
	tail = strings.Repeat("x", lastLineBytes-len(prefix))
	return []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: out-last-line\ndata:\n  head: before the long line\n" + prefix + tail + "\n"), tail
}

var outLastLine = Check{
	ID: "OUT-001", Title: "the final line of a plugin's output reaches the cluster, a line of 4096 bytes included",
	Area: Output, Level: Provisional, Requires: []Feature{Discovery}, Roles: []Role{RolePlain},
	Upstream: []string{"helm/helm#32506"},
	Test: func(ctx context.Context, s *Suite) {
		file, tail := lastLineFile()
		c := s.DiscoveredBy(s.Given(ctx).NamePrefix("out-last").Path("smoke-plain").File("zz-last-line.yaml", file), RolePlain)
		// The sync succeeded, so the live object is what Argo CD rendered:
		// read once, no wait for a field that will not come.
		expectSyncedThroughPlugin(s, c).
			Expect(func(cs *dsl.Consequences) (dsl.State, string) {
				obj, err := cs.Live("v1", "ConfigMap", "out-last-line")
				if err != nil { // after a succeeded sync, absent for good
					return dsl.Failed, fmt.Sprintf("ConfigMap out-last-line is not in the cluster after the sync: %v", err)
				}
				head, _, _ := unstructured.NestedString(obj.Object, "data", "head")
				got, found, _ := unstructured.NestedString(obj.Object, "data", "tail")
				switch {
				case head != "before the long line":
					return dsl.Failed, fmt.Sprintf("data.head is %q: the ConfigMap did not arrive as printed", head)
				case !found:
					return dsl.Failed, fmt.Sprintf("data.tail is missing from the synced ConfigMap: the final line of the plugin's output (%d bytes, unterminated once Argo CD trims the output's trailing newline) did not reach the cluster", lastLineBytes)
				case got != tail:
					return dsl.Failed, fmt.Sprintf("data.tail has %d bytes, want %d", len(got), len(tail))
				}
				return dsl.Succeeded, ""
			}).
			Expect(dsl.SourceTypeIs(v1alpha1.ApplicationSourceTypePlugin))
	},
}
