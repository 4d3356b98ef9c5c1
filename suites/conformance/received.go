package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	applicationpkg "github.com/argoproj/argo-cd/v3/pkg/apiclient/application"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/internal/text"
	"github.com/cmp-conformance/cmp-conformance/plugins/sidecar"
)

// Received is what the parameterized plugin recorded of one generate run:
// its environment (parameters and build environment) and the raw
// ARGOCD_APP_PARAMETERS, read back from the cluster.
type Received struct {
	App        *dsl.Context
	Env        map[string]string
	Parameters string
}

// Has says whether a variable was set (possibly to "").
func (r Received) Has(name string) bool {
	_, ok := r.Env[name]
	return ok
}

// paramsSpec creates an application of the parameterized plugin with the given
// parameters (and plugin env), syncs it, and returns what the plugin received.
func paramsSpec(ctx context.Context, s *Suite, prefix string, env map[string]string, params ...v1alpha1.ApplicationSourcePluginParameter) Received {
	c := s.DiscoveredBy(s.Given(ctx).NamePrefix(prefix).Path("params-app"), RoleParameterized)
	if len(params) > 0 {
		c.Parameters(params...)
	}
	if len(env) > 0 {
		c.PluginEnv(env)
	}
	expectSyncedThroughPlugin(s, c)
	r, err := readReceived(ctx, s.Env, c)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return r
}

func readReceived(ctx context.Context, env *dsl.Env, c *dsl.Context) (Received, error) {
	cm, err := env.Clientset.CoreV1().ConfigMaps(c.Name()).Get(ctx, sidecar.ReceivedConfigMap, metav1.GetOptions{})
	if err != nil {
		return Received{}, fmt.Errorf("reading what the plugin received (ConfigMap %s/%s): %w", c.Name(), sidecar.ReceivedConfigMap, err)
	}
	recorded, err := environOf(cm)
	if err != nil {
		// Say whether Argo CD rendered the record whole: a cut plugin
		// output and a lost field on the way to the cluster look alike here.
		return Received{}, fmt.Errorf("%w (%s; the live ConfigMap has %s)", err, renderedRecord(ctx, env, c.Name()), recordKeys(cm.BinaryData))
	}
	return Received{App: c, Env: recorded, Parameters: recorded["ARGOCD_APP_PARAMETERS"]}, nil
}

// renderedRecord describes the record ConfigMap among the manifests Argo CD
// renders for app: its binaryData keys and sizes.
func renderedRecord(ctx context.Context, env *dsl.Env, app string) string {
	resp, err := env.Apps.GetManifests(ctx, &applicationpkg.ApplicationManifestQuery{Name: &app})
	if err != nil {
		return "Argo CD's rendered manifests could not be read: " + err.Error()
	}
	for _, m := range resp.Manifests {
		var cm corev1.ConfigMap
		if json.Unmarshal([]byte(m), &cm) == nil && cm.Kind == "ConfigMap" && cm.Name == sidecar.ReceivedConfigMap {
			return fmt.Sprintf("Argo CD renders it with %s (%d bytes of manifest)", recordKeys(cm.BinaryData), len(m))
		}
	}
	return fmt.Sprintf("Argo CD's %d rendered manifests hold no %s", len(resp.Manifests), sidecar.ReceivedConfigMap)
}

// recordKeys is a ConfigMap's binaryData as "binaryData {key: N bytes}".
func recordKeys(data map[string][]byte) string {
	var out []string
	for k, v := range data {
		out = append(out, fmt.Sprintf("%s: %d bytes", k, len(v)))
	}
	slices.Sort(out)
	return "binaryData {" + strings.Join(out, ", ") + "}"
}

// environOf reads the environment the parameterized plugin recorded in its
// ConfigMap.
func environOf(cm *corev1.ConfigMap) (map[string]string, error) {
	env := map[string]string{}
	if err := json.Unmarshal(cm.BinaryData[sidecar.KeyEnviron], &env); err != nil {
		return nil, fmt.Errorf("ConfigMap %s: %s is not a JSON object: %w", sidecar.ReceivedConfigMap, sidecar.KeyEnviron, err)
	}
	return env, nil
}

var notEnvChar = regexp.MustCompile(`[^A-Z0-9_]`)

// escaped is the specification's escaping of a parameter name or map key
// (proposal: uppercase, then every character matching [^A-Z0-9_] becomes _),
// written here from the proposal, not copied from Argo CD.
func escaped(name string) string {
	return notEnvChar.ReplaceAllString(strings.ToUpper(name), "_")
}

// str, arr and mp build parameters tersely.
func str(name, v string) v1alpha1.ApplicationSourcePluginParameter {
	return v1alpha1.ApplicationSourcePluginParameter{Name: name, String_: &v}
}

func arr(name string, v ...string) v1alpha1.ApplicationSourcePluginParameter {
	if v == nil {
		v = []string{}
	}
	return v1alpha1.ApplicationSourcePluginParameter{Name: name, OptionalArray: &v1alpha1.OptionalArray{Array: v}}
}

func mp(name string, v map[string]string) v1alpha1.ApplicationSourcePluginParameter {
	return v1alpha1.ApplicationSourcePluginParameter{Name: name, OptionalMap: &v1alpha1.OptionalMap{Map: v}}
}

// expectEnv asserts variables of what the plugin received, listing every
// difference at once.
func expectEnv(r Received, want map[string]string) {
	var diffs []string
	for k, v := range want {
		got, ok := r.Env[k]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s is not set, want %q", k, v))
		case got != v:
			diffs = append(diffs, fmt.Sprintf("%s = %q, want %q", k, clip(got), clip(v)))
		}
	}
	gomega.Expect(diffs).To(gomega.BeEmpty(), "the plugin received (PARAM_*: %v)", paramNames(r))
}

func paramNames(r Received) []string {
	var out []string
	for k := range r.Env {
		if strings.HasPrefix(k, "PARAM_") {
			out = append(out, k)
		}
	}
	return out
}

// clip shows at most 120 bytes of s, with its length when it is longer.
func clip(s string) string {
	if len(s) > 120 {
		return fmt.Sprintf("%s(%d bytes)", text.Clip(s, 120), len(s))
	}
	return s
}
