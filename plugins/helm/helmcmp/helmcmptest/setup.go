// Package helmcmptest is the behaviour suite of cmp-helm, shared by the Helm 3
// build (helmcmp tests) and the Helm 4 build (helm4 tests): each runs it with
// its own Renderer, and, when a helm binary of the same version is cached,
// compares every render with `helm template` byte for byte.
package helmcmptest

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata is helmcmp/testdata, found from the test's folder upwards so
// that the suite also works from the helm4 module (not from this file's
// path: builds with -trimpath give a module path, not a folder).
func testdata() string {
	dir, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, "helmcmp", "testdata")); err == nil && fi.IsDir() {
			return filepath.Join(d, "helmcmp", "testdata")
		}
		if filepath.Dir(d) == d {
			panic("no helmcmp/testdata in " + dir + " or above it")
		}
	}
}

// fixture is one test chart laid out as Argo CD hands it to a CMP: the
// repository is unpacked in root and the plugin runs in root/apps/<chart>.
type fixture struct {
	root    string // repository root
	appDir  string // the application folder, where the plugin runs
	outside string // a file next to, not inside, the repository
}

func newFixture(t *testing.T, chart string) fixture {
	t.Helper()
	base := t.TempDir()
	f := fixture{root: filepath.Join(base, "repo"), outside: filepath.Join(base, "outside.yaml")}
	f.appDir = filepath.Join(f.root, "apps", chart)
	if err := copyTree(filepath.Join(testdata(), chart), f.appDir); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(f.root, "shared", "values-shared.yaml"), "layer:\n  a: shared\n")
	write(t, f.outside, "layer:\n  a: outside\n")
	return f
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// baseEnv is what the CMP server sets for an app "guestbook" in namespace
// "team-a" on a 1.34 cluster (KUBE_VERSION as Argo CD formats it).
func baseEnv(chart string) map[string]string {
	return map[string]string{
		"ARGOCD_APP_NAME":                   "guestbook",
		"ARGOCD_APP_NAMESPACE":              "team-a",
		"ARGOCD_APP_PROJECT_NAME":           "default",
		"ARGOCD_APP_REVISION":               "0123456789abcdef0123456789abcdef01234567",
		"ARGOCD_APP_REVISION_SHORT":         "0123456",
		"ARGOCD_APP_SOURCE_PATH":            "apps/" + chart,
		"ARGOCD_APP_SOURCE_REPO_URL":        "https://git.example.com/repo.git",
		"KUBE_VERSION":                      "1.34",
		"KUBE_API_VERSIONS":                 "v1,apps/v1,batch/v1",
		"ARGOCD_APP_SOURCE_TARGET_REVISION": "HEAD",
	}
}

// envOf overlays overrides on baseEnv; an override "-" unsets the variable.
func envOf(chart string, overrides map[string]string) func(string) string {
	env := baseEnv(chart)
	for k, v := range overrides {
		if v == "-" {
			delete(env, k)
		} else {
			env[k] = v
		}
	}
	return func(k string) string { return env[k] }
}

// Parameter builders for ARGOCD_APP_PARAMETERS, in Argo CD's JSON shape.
type param map[string]any

func str(name, v string) param           { return param{"name": name, "string": v} }
func arr(name string, v ...string) param { return param{"name": name, "array": v} }
func mp(name string, kv ...string) param {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return param{"name": name, "map": m}
}

func params(ps ...param) string {
	if len(ps) == 0 {
		return ""
	}
	b, err := json.Marshal(ps)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// inOrder reports the first of want that is missing from s, looking for
// each after the previous one.
func inOrder(s string, want []string) (string, bool) {
	at := 0
	for _, w := range want {
		i := strings.Index(s[at:], w)
		if i < 0 {
			return w, false
		}
		at += i + len(w)
	}
	return "", true
}
