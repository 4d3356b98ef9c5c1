package helmcmptest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/plugins/helm/helmcmp"
)

// Run is the whole suite for one Renderer.
func Run(t *testing.T, r helmcmp.Renderer) {
	t.Run("generate", func(t *testing.T) { testGenerate(t, r) })
	t.Run("announce", func(t *testing.T) { testAnnounce(t, r) })
	t.Run("announce JSON", func(t *testing.T) { testAnnounceJSON(t, r) })
	t.Run("command line", func(t *testing.T) { testMain(t, r) })
	t.Run("helm template parity", func(t *testing.T) { testParity(t, r) })
}

// plainDefaults is what native GetParameters gives for testdata/plain:
// values.yaml leaves, dotted, lists indexed, %v formatting of JSON numbers.
var plainDefaults = map[string]string{
	"replicaCount": "1", "image.repository": "nginx", "image.tag": "1.27", "image.pullPolicy": "IfNotPresent",
	"bigNumber": "1e+06", "ratio": "0.5", "enabled": "true", "nothing": "<nil>",
	"ports[0].name": "http", "ports[0].port": "80", "ports[1].name": "https", "ports[1].port": "443",
	"tags[0]": "alpha", "tags[1]": "beta",
	"layer.chart": "values.yaml", "layer.a": "values.yaml", "layer.b": "values.yaml",
	"layer.inline": "values.yaml", "layer.param": "values.yaml",
}

func overlay(base map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func testAnnounce(t *testing.T, r helmcmp.Renderer) {
	plainFiles := []string{"envs/prod-values.yml", "values-a.yaml", "values-b.yaml", "values.yaml"}
	cases := []struct {
		name      string
		chart     string
		params    string
		wantFiles []string
		wantMap   map[string]string
		wantErr   string
	}{
		{name: "values.yaml only", chart: "plain", wantFiles: plainFiles, wantMap: plainDefaults},
		{name: "selected value files are merged in, missing ones skipped", chart: "plain",
			params:    params(arr("values-files", "values-a.yaml", "missing.yaml", "values-b.yaml")),
			wantFiles: plainFiles,
			wantMap: overlay(plainDefaults, "layer.a", "values-a.yaml", "layer.b", "values-b.yaml",
				"layer.inline", "values-b.yaml", "layer.param", "values-b.yaml", "fromA", "onlyInA")},
		{name: "other parameters do not change the defaults", chart: "plain",
			params:    params(str("values", "replicaCount: 9"), mp("helm-parameters", "replicaCount", "5")),
			wantFiles: plainFiles, wantMap: plainDefaults},
		{name: "subchart value files are listed, subchart values are not", chart: "withdep",
			wantFiles: []string{"charts/sub/values.yaml", "values.yaml"},
			wantMap: map[string]string{"greeting": "hello", "sub.color": "blue", "disabledSub.enabled": "false",
				"global.owner": "parent"}},
		{name: "chart without values", chart: "crds", wantFiles: nil, wantMap: map[string]string{}},
		{name: "selected value file outside the repository", chart: "plain",
			params: params(arr("values-files", "../../../outside.yaml")), wantErr: "outside repository root"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, c.chart)
			env := map[string]string{}
			if c.params != "" {
				env["ARGOCD_APP_PARAMETERS"] = c.params
			}
			list, err := helmcmp.Announce(r, f.appDir, envOf(c.chart, env))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			byName := map[string]helmcmp.Announcement{}
			for _, a := range list {
				byName[a.Name] = a
			}
			if got := byName["values-files"]; got.CollectionType != "array" || !reflect.DeepEqual(got.Array, c.wantFiles) {
				t.Errorf("values-files = %+v, want array %v", got, c.wantFiles)
			}
			if got := byName["values"]; got.CollectionType != "string" || got.String != "" {
				t.Errorf("values = %+v", got)
			}
			got := byName["helm-parameters"]
			if got.CollectionType != "map" || !reflect.DeepEqual(nonNilMap(got.Map), c.wantMap) {
				t.Errorf("helm-parameters map = %v\nwant %v", got.Map, c.wantMap)
			}
		})
	}
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// testAnnounceJSON pins the exact bytes `cmp-helm parameters` prints.
func testAnnounceJSON(t *testing.T, r helmcmp.Renderer) {
	f := newFixture(t, "required")
	t.Chdir(f.appDir)
	var stdout, stderr bytes.Buffer
	code := helmcmp.Main(r, []string{"parameters"}, &stdout, &stderr, envOf("required", nil))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	want := `[{"name":"values-files","title":"VALUES FILES","tooltip":"Value files to pass to helm, in order, after the chart's values.yaml. The default lists every values file in the chart folder; none is used unless set.","collectionType":"array","array":["values.yaml"]},` +
		`{"name":"values","title":"VALUES","tooltip":"Inline YAML values, applied after the value files.","collectionType":"string"},` +
		`{"name":"helm-parameters","title":"PARAMETERS","tooltip":"Helm --set overrides, applied last. \"true\"/\"false\", \"null\" and integers become YAML types, as native Argo CD's --set does; use helm-string-parameters to keep strings.","collectionType":"map","map":{"image.repository":"nginx"}}]` + "\n"
	if stdout.String() != want {
		t.Fatalf("parameters printed\n%s\nwant\n%s", stdout.String(), want)
	}
	var decoded []map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &decoded); err != nil {
		t.Fatal(err)
	}
}

// testMain checks exit codes and streams of the command line.
func testMain(t *testing.T, r helmcmp.Renderer) {
	cases := []struct {
		name, chart string
		args        []string
		params      string
		code        int
		stdout      string // substring; "" means empty
		stderr      string // substring; "" means empty
	}{
		{name: "help", chart: "plain", args: []string{"--help"}, stdout: "cmp-helm generate"},
		{name: "no command", chart: "plain", args: nil, code: 2, stderr: "Usage:"},
		{name: "unknown command", chart: "plain", args: []string{"render"}, code: 2, stderr: `Error: unknown command "render"`},
		{name: "version", chart: "plain", args: []string{"version"}, stdout: "helm " + r.Version()},
		{name: "generate", chart: "plain", args: []string{"generate"}, stdout: "# Source: plain/templates/deployment.yaml"},
		{name: "render error", chart: "required", args: []string{"generate"}, code: 1,
			stderr: "Error: execution error at (required/templates/pod.yaml:8:"},
		{name: "render error message", chart: "required", args: []string{"generate"}, code: 1,
			stderr: "image.tag is required\n\nUse --debug flag to render out invalid YAML\n"},
		{name: "parameter error", chart: "plain", args: []string{"generate"}, params: params(str("nope", "x")), code: 1,
			stderr: `Error: unknown parameter "nope"` + "\n"},
		{name: "announcement error", chart: "plain", args: []string{"parameters"},
			params: params(arr("values-files", "/../../etc/passwd/../../../x")), code: 1, stderr: "Error: failed to resolve value files"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, c.chart)
			t.Chdir(f.appDir)
			env := map[string]string{}
			if c.params != "" {
				env["ARGOCD_APP_PARAMETERS"] = c.params
			}
			var stdout, stderr bytes.Buffer
			code := helmcmp.Main(r, c.args, &stdout, &stderr, envOf(c.chart, env))
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, c.code, stderr.String())
			}
			check := func(stream, got, want string) {
				if want == "" && got != "" {
					t.Errorf("%s must be empty, got %q", stream, got)
				}
				if want != "" && !strings.Contains(got, want) {
					t.Errorf("%s = %q, want it to contain %q", stream, got, want)
				}
			}
			check("stdout", stdout.String(), c.stdout)
			check("stderr", stderr.String(), c.stderr)
		})
	}
}
