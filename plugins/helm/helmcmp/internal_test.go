package helmcmp

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestEnvsubst(t *testing.T) {
	env := map[string]string{"ARGOCD_APP_NAME": "app", "HOME": "/root", "KUBE_VERSION": "1.34"}
	get := func(k string) string { return env[k] }
	for in, want := range map[string]string{
		"$ARGOCD_APP_NAME-x": "app-x",
		"${ARGOCD_APP_NAME}": "app",
		"$HOME":              "", // not in the native build env
		"$KUBE_VERSION":      "", // CMP-only variable, unknown to native Helm
		"$$HOME":             "$HOME",
		"$(touch /tmp/x)":    "$(touch /tmp/x)",
		"`id`; rm -rf /":     "`id`; rm -rf /",
		"a$":                 "a$",
		"price: 5$ or ${}":   "price: 5$ or ",
	} {
		if got := envsubst(in, get); got != want {
			t.Errorf("envsubst(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCleanSetParameter(t *testing.T) {
	for in, want := range map[string]string{
		"plain":   "plain",
		"a,b":     `a\,b`,
		`a\,b`:    `a\,b`,
		"{a,b}":   "{a,b}",
		"{a,b":    `{a\,b`,
		"k=v,x=y": `k=v\,x=y`,
	} {
		if got := cleanSetParameter(in); got != want {
			t.Errorf("cleanSetParameter(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReleaseNameAndRepoRoot(t *testing.T) {
	if got := releaseName("ns_app_x"); got != "app_x" {
		t.Errorf("releaseName = %q", got)
	}
	if got := releaseName("app"); got != "app" {
		t.Errorf("releaseName = %q", got)
	}
	for _, c := range []struct{ dir, src, want string }{
		{"/w/repo/apps/x", "apps/x", "/w/repo"},
		{"/w/repo/apps/x", "./apps/x/", "/w/repo"},
		{"/w/repo/apps/x", "/apps/x", "/w/repo"},
		{"/w/repo", ".", "/w/repo"},
		{"/w/repo", "", "/w/repo"},
		{"/w/repo/apps/x", "other/x", "/w/repo/apps/x"},
		{"/w/repo/apps/x", "../../etc", "/w/repo/apps/x"},
	} {
		if got := repoRoot(c.dir, c.src); got != c.want {
			t.Errorf("repoRoot(%q, %q) = %q, want %q", c.dir, c.src, got, c.want)
		}
	}
}

func TestResolveValueFile(t *testing.T) {
	root := t.TempDir()
	app := filepath.Join(root, "apps", "x")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(app, "evil.yaml")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want, err string }{
		{in: "values.yaml", want: filepath.Join(app, "values.yaml")},
		{in: "../y/v.yaml", want: filepath.Join(root, "apps", "y", "v.yaml")},
		{in: "/apps/x/v.yaml", want: filepath.Join(app, "v.yaml")},
		{in: "../../../v.yaml", err: "outside repository root"},
		{in: "evil.yaml", err: "outside repository root"},
		{in: "../..", err: "repository root"},
		{in: "http://example.com/v.yaml", err: "URL scheme 'http' is not allowed"},
	} {
		got, err := resolveValueFile(app, root, c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("resolveValueFile(%q) error = %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("resolveValueFile(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestParseKubeVersion(t *testing.T) {
	for in, want := range map[string]string{"": "", "1.34": "1.34", "v1.34.4+k3s1": "1.34.4", "1.30+": "1.30", "v1.31.0-rc.1": "1.31.0"} {
		if got, err := parseKubeVersion(in); err != nil || got != want {
			t.Errorf("parseKubeVersion(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := parseKubeVersion("1"); err == nil {
		t.Error("want an error for a single component")
	}
}

func TestParseParams(t *testing.T) {
	p, err := ParseParams(`[{"name":"values-files","array":["a.yaml","b.yaml"]},{"name":"values","string":"x: 1"},` +
		`{"name":"helm-parameters","map":{"a.b":"1"}},{"name":"skip-crds","string":"true"},{"name":"api-versions","array":[]},` +
		`{"name":"helm-string-parameters","map":{}}]`)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.ValuesFiles, []string{"a.yaml", "b.yaml"}) || p.Values != "x: 1" ||
		p.Set["a.b"] != "1" || !p.SkipCRDs || p.SkipTests || len(p.SetString) != 0 {
		t.Fatalf("parsed %+v", p)
	}
	for raw, want := range map[string]string{
		`[{"name":"values","array":["x"]}]`:         "must be a string",
		`[{"name":"helm-parameters","string":"x"}]`: "must be a map",
		`[{"name":"skip-tests","string":"1x"}]`:     "must be \"true\" or \"false\"",
		`{"name":"values"}`:                         "not a JSON array",
	} {
		if _, err := ParseParams(raw); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseParams(%s) error = %v, want %q", raw, err, want)
		}
	}
}

func TestFlatVals(t *testing.T) {
	in := map[string]any{
		"a":     map[string]any{"b": "c", "n": float64(1000000), "f": 0.25, "t": true, "z": nil},
		"list":  []any{"x", map[string]any{"k": "v"}, []any{"nested"}},
		"empty": map[string]any{},
		"none":  []any{},
	}
	got := map[string]string{}
	flatVals(in, got)
	want := map[string]string{"a.b": "c", "a.n": "1e+06", "a.f": "0.25", "a.t": "true", "a.z": "<nil>",
		"list[0]": "x", "list[1].k": "v", "list[2][0]": "nested"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("flatVals = %v\nwant %v", got, want)
	}
}
