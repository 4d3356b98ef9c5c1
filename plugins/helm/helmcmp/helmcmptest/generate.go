package helmcmptest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/plugins/helm/helmcmp"
)

type genCase struct {
	name    string
	chart   string
	env     map[string]string // over baseEnv; "-" unsets
	params  string            // ARGOCD_APP_PARAMETERS
	want    []string          // must all appear, in this order
	notWant []string
	wantErr string // substring of the error; "" means success
	// preHelm: the error comes from resolving parameters, before helm
	// would run, so there is no `helm template` to compare with.
	preHelm bool
}

// hostileMarker is a file that a shell-interpreted parameter would create.
var hostileMarker = filepath.Join(os.TempDir(), "cmp-helm-hostile-marker")

func generateCases(r helmcmp.Renderer) []genCase {
	// .Capabilities.KubeVersion.Version: Helm 3 prints the semver ("1.34"
	// is v1.34.0), Helm 4 keeps what it was given, with a "v" ("v1.34").
	kubeVersion := func(helm3, helm4 string) string {
		if strings.HasPrefix(r.Version(), "v3.") {
			return `kubeVersion: "` + helm3 + `"`
		}
		return `kubeVersion: "` + helm4 + `"`
	}
	layers := []string{`chart: "values.yaml"`, `a: "values-a.yaml"`, `b: "values-b.yaml"`, `inline: "inline"`, `param: "param"`}
	return []genCase{
		{name: "plain chart, helm template order and sources", chart: "plain",
			want: []string{"---\n# Source: plain/templates/configmap.yaml\n", "name: guestbook-layers", "namespace: team-a",
				`chart: "values.yaml"`, `a: "values.yaml"`, `tags: "alpha,beta"`,
				"---\n# Source: plain/templates/service.yaml\n", "kind: Service",
				"---\n# Source: plain/templates/deployment.yaml\n", "replicas: 1", `image: "nginx:1.27"`, "containerPort: 443"},
			notWant: []string{"Installed guestbook", "NOTES"}},
		{name: "values.yaml < values-a < values-b < inline values < helm-parameters", chart: "plain",
			params: params(arr("values-files", "values-a.yaml", "values-b.yaml"),
				str("values", "layer:\n  inline: inline\n  param: inline\n"),
				mp("helm-parameters", "layer.param", "param")),
			want: layers},
		{name: "value files apply in the order given", chart: "plain",
			params: params(arr("values-files", "values-b.yaml", "values-a.yaml")),
			want:   []string{`b: "values-a.yaml"`}},
		{name: "value file in a sub folder", chart: "plain",
			params: params(arr("values-files", "envs/prod-values.yml")),
			want:   []string{`replicas: "3"`, "replicas: 3"}},
		{name: "value file elsewhere in the repository, relative and absolute", chart: "plain",
			params: params(arr("values-files", "../../shared/values-shared.yaml", "/shared/values-shared.yaml")),
			want:   []string{`a: "shared"`}},
		{name: "value file outside the repository is refused", chart: "plain",
			params:  params(arr("values-files", "../../../outside.yaml")),
			wantErr: "resolved to outside repository root", preHelm: true},
		{name: "remote value file is refused", chart: "plain",
			params:  params(arr("values-files", "https://example.com/values.yaml")),
			wantErr: "the URL scheme 'https' is not allowed", preHelm: true},
		{name: "missing value file fails as helm does", chart: "plain",
			params:  params(arr("values-files", "nope.yaml")),
			wantErr: "nope.yaml: no such file or directory"},
		{name: "missing value file ignored on request", chart: "plain",
			params: params(arr("values-files", "nope.yaml", "values-a.yaml"), str("ignore-missing-value-files", "true")),
			want:   []string{`a: "values-a.yaml"`}},
		{name: "inline values that are not YAML fail with helm's message", chart: "plain",
			params:  params(str("values", "layer: [unclosed")),
			wantErr: "failed to parse"},
		{name: "helm-parameters are typed like --set", chart: "plain",
			params: params(mp("helm-parameters", "typed.bool", "true", "typed.int", "1", "typed.zero", "0",
				"typed.float", "1.5", "typed.octal", "007", "typed.word", "hello", "typed.comma", "a,b", "tags", "{x,y}")),
			want: []string{`tags: "x,y"`, `typed-bool: "bool=true"`, `typed-comma: "string=a,b"`, `typed-float: "string=1.5"`,
				`typed-int: "int64=1"`, `typed-octal: "string=007"`, `typed-word: "string=hello"`, `typed-zero: "int64=0"`}},
		{name: "helm-string-parameters stay strings, after helm-parameters", chart: "plain",
			params: params(mp("helm-parameters", "typed.flag", "true", "typed.n", "2"),
				mp("helm-string-parameters", "typed.flag", "true", "typed.s", "1")),
			want: []string{`typed-flag: "string=true"`, `typed-n: "int64=2"`, `typed-s: "string=1"`}},
		{name: "hostile parameter values stay data", chart: "plain",
			params: params(mp("helm-parameters",
				"hostile.sub", "$(touch "+hostileMarker+")",
				"hostile.tick", "`touch "+hostileMarker+"`",
				"hostile.semi", "x; touch "+hostileMarker+"; echo",
				"hostile.pipe", "a | touch "+hostileMarker+" && b",
				"hostile.tmpl", "x {{ .Release.Name }}",
				"hostile.eq", "k=v",
				"hostile.quote", `it's "quoted"`,
				"hostile.env", "$HOME:${ARGOCD_APP_NAME}:$$HOME")),
			want: []string{
				`hostile-env: ":guestbook:$HOME"`, `hostile-eq: "k=v"`,
				`hostile-pipe: "a | touch ` + hostileMarker + ` && b"`,
				`hostile-quote: "it's \"quoted\""`,
				`hostile-semi: "x; touch ` + hostileMarker + `; echo"`,
				`hostile-sub: "$(touch ` + hostileMarker + `)"`,
				"hostile-tick: \"`touch " + hostileMarker + "`\"",
				`hostile-tmpl: "x {{ .Release.Name }}"`}},
		{name: "a value in braces is a helm list, as natively (no comma escaping)", chart: "plain",
			params:  params(mp("helm-parameters", "hostile.tmpl", "{{ .Release.Name }}")),
			wantErr: "failed parsing --set data"},
		{name: "helm-file-parameters read the file as a string", chart: "plain",
			params: params(mp("helm-file-parameters", "file", "files/motd.txt")),
			want:   []string{`file: "hello from a file\n"`}},
		{name: "release name drops the app namespace prefix", chart: "plain",
			env:  map[string]string{"ARGOCD_APP_NAME": "argocd-apps_guestbook"},
			want: []string{"name: guestbook-layers"}},
		{name: "release-name and namespace parameters override", chart: "plain",
			params: params(str("release-name", "custom"), str("namespace", "other")),
			want:   []string{"name: custom-layers", "namespace: other"}},
		{name: "vendored dependency, parent values override the subchart", chart: "withdep",
			want: []string{"# Source: withdep/charts/sub/templates/sub.yaml", "name: guestbook-sub",
				`color: "blue"`, `size: "small"`, `owner: "parent"`,
				"# Source: withdep/templates/parent.yaml", `subColor: "blue"`},
			notWant: []string{"disabled-sub"}},
		{name: "dependency that is not vendored fails", chart: "missingdep",
			wantErr: "found in Chart.yaml, but missing in charts/ directory: ghost"},
		{name: "CRDs are included first", chart: "crds",
			want: []string{"---\n# Source: crds/crds/widgets.yaml\n", "kind: CustomResourceDefinition",
				"---\n# Source: crds/templates/widget.yaml\n", "kind: Widget"}},
		{name: "skip-crds drops them", chart: "crds", params: params(str("skip-crds", "true")),
			want: []string{"kind: Widget"}, notWant: []string{"CustomResourceDefinition"}},
		{name: "capabilities from KUBE_VERSION and KUBE_API_VERSIONS", chart: "capabilities",
			env: map[string]string{"KUBE_API_VERSIONS": "v1,apps/v1,example.com/v1,monitoring.coreos.com/v1,monitoring.coreos.com/v1/ServiceMonitor"},
			want: []string{kubeVersion("v1.34.0", "v1.34"), `kubeMajor: "1"`, `kubeMinor: "34"`, `hasWidgets: "true"`,
				`hasServiceMonitor: "true"`, `hasAppsV1: "true"`, `semverGE130: "true"`, "kind: ServiceMonitor"}},
		{name: "capabilities without extra API versions", chart: "capabilities",
			env:     map[string]string{"KUBE_VERSION": "1.29", "KUBE_API_VERSIONS": "-"},
			want:    []string{kubeVersion("v1.29.0", "v1.29"), `kubeMinor: "29"`, `hasWidgets: "false"`, `hasAppsV1: "true"`, `semverGE130: "false"`},
			notWant: []string{"kind: ServiceMonitor"}},
		{name: "kube-version and api-versions parameters override, parsed like Argo CD", chart: "capabilities",
			params: params(str("kube-version", "v1.31.4+k3s1"), arr("api-versions", "example.com/v1")),
			want:   []string{kubeVersion("v1.31.4", "v1.31.4"), `kubeMinor: "31"`, `hasWidgets: "true"`, `hasServiceMonitor: "false"`}},
		{name: "unparsable kube version", chart: "capabilities", env: map[string]string{"KUBE_VERSION": "banana"},
			wantErr: "could not parse kubernetes version banana", preHelm: true},
		// helm template prints hooks after the manifests, sorted by kind
		// (ConfigMap, Pod, Job), whatever their event or weight.
		{name: "hooks are rendered after the manifests, tests included", chart: "hooks",
			want: []string{"# Source: hooks/templates/cm.yaml", "---\n# Source: hooks/templates/post-install.yaml\n",
				"---\n# Source: hooks/templates/tests/test-connection.yaml\n", "---\n# Source: hooks/templates/pre-install.yaml\n",
				`"helm.sh/hook-weight": "-5"`}},
		{name: "skip-tests drops test hooks only", chart: "hooks", params: params(str("skip-tests", "true")),
			want: []string{"post-install.yaml", "pre-install.yaml"}, notWant: []string{"test-connection"}},
		{name: "required value missing", chart: "required", wantErr: "image.tag is required"},
		{name: "required value given", chart: "required", params: params(mp("helm-parameters", "image.tag", "1.2.3")),
			want: []string{`image: "nginx:1.2.3"`}},
		{name: "template syntax error", chart: "badsyntax", wantErr: "badsyntax/templates/cm.yaml"},
		{name: "library chart", chart: "library", wantErr: "library charts are not installable"},
		{name: "unknown parameter", chart: "plain", params: params(str("valuesfiles", "x")),
			wantErr: `unknown parameter "valuesfiles"`, preHelm: true},
		{name: "parameter of the wrong shape", chart: "plain", params: params(str("values-files", "values-a.yaml")),
			wantErr: `parameter "values-files" must be an array`, preHelm: true},
		{name: "boolean parameter that is not a boolean", chart: "crds", params: params(str("skip-crds", "yes please")),
			wantErr: `parameter "skip-crds" must be "true" or "false"`, preHelm: true},
		{name: "ARGOCD_APP_PARAMETERS that is not JSON", chart: "plain", env: map[string]string{"ARGOCD_APP_PARAMETERS": "{"},
			wantErr: "ARGOCD_APP_PARAMETERS is not a JSON array", preHelm: true},
	}
}

// runGenerate renders one case with r; it returns stdout, stderr and error.
func runGenerate(r helmcmp.Renderer, f fixture, c genCase) (string, string, error) {
	env := map[string]string{}
	for k, v := range c.env {
		env[k] = v
	}
	if c.params != "" {
		env["ARGOCD_APP_PARAMETERS"] = c.params
	}
	var stdout, stderr bytes.Buffer
	err := helmcmp.Generate(r, f.appDir, envOf(c.chart, env), &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

func testGenerate(t *testing.T, r helmcmp.Renderer) {
	for _, c := range generateCases(r) {
		t.Run(c.name, func(t *testing.T) {
			_ = os.Remove(hostileMarker)
			f := newFixture(t, c.chart)
			out, _, err := runGenerate(r, f, c)
			if _, statErr := os.Stat(hostileMarker); statErr == nil {
				t.Fatalf("a parameter value was executed: %s exists", hostileMarker)
			}
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, c.wantErr)
				}
				if out != "" {
					t.Fatalf("stdout must be empty on error, got:\n%s", out)
				}
				return
			}
			if err != nil {
				t.Fatalf("generate: %v", err)
			}
			if missing, ok := inOrder(out, c.want); !ok {
				t.Fatalf("output lacks %q (or it is out of order):\n%s", missing, out)
			}
			for _, nw := range c.notWant {
				if strings.Contains(out, nw) {
					t.Fatalf("output contains %q:\n%s", nw, out)
				}
			}
		})
	}
}
