package render

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/cmp-conformance/cmp-conformance/fixtures/kube"
)

// Normalize makes manifests comparable with a golden file: each object as
// JSON with Argo CD's tracking annotation and label removed (and the
// annotations or labels left empty by that), in the order of their kind,
// namespace and name.
func Normalize(manifests []string) ([]string, error) {
	out := make([]string, 0, len(manifests))
	for i, m := range manifests {
		obj := map[string]any{}
		if err := json.Unmarshal([]byte(m), &obj); err != nil {
			return nil, fmt.Errorf("object %d is no JSON object: %w", i+1, err)
		}
		kube.DropTracking(obj)
		data, err := json.Marshal(obj)
		if err != nil {
			return nil, err
		}
		out = append(out, string(data))
	}
	key := func(m string) string {
		var o struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name, Namespace string
			} `json:"metadata"`
		}
		_ = json.Unmarshal([]byte(m), &o)
		return o.Kind + " " + o.Metadata.Namespace + "/" + o.Metadata.Name
	}
	slices.SortStableFunc(out, func(a, b string) int { return strings.Compare(key(a), key(b)) })
	return out, nil
}

// MatchGolden compares manifests, normalized, with the golden file's
// objects (YAML documents, in any order) and says what differs, object by
// object ("" when nothing does). With update it writes the golden file
// from the manifests instead (a new file too) and returns "".
func MatchGolden(manifests []string, golden string, update bool) (string, error) {
	got, err := Normalize(manifests)
	if err != nil {
		return "", err
	}
	if update {
		var b strings.Builder
		for i, m := range got {
			y, err := yaml.JSONToYAML([]byte(m))
			if err != nil {
				return "", err
			}
			if i > 0 {
				b.WriteString("---\n")
			}
			b.Write(y)
		}
		return "", os.WriteFile(golden, []byte(b.String()), 0o644)
	}
	data, err := os.ReadFile(golden)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("golden file %s does not exist: run the test with -update (or CMPC_UPDATE_GOLDENS=1) to write it from this render", golden)
	}
	if err != nil {
		return "", err
	}
	objs, err := kube.Decode(data)
	if err != nil {
		return "", fmt.Errorf("golden file %s: %w", golden, err)
	}
	var want []string
	for _, o := range objs {
		b, err := json.Marshal(o.Object)
		if err != nil {
			return "", err
		}
		want = append(want, string(b))
	}
	if want, err = Normalize(want); err != nil {
		return "", fmt.Errorf("golden file %s: %w", golden, err)
	}
	return Diff(want, got)
}

// Updating says whether goldens are to be rewritten: the test binary's
// -update flag when the author's test defines one (flag.Bool("update",
// ...)), or CMPC_UPDATE_GOLDENS=1. The library defines no flag of its own,
// so it cannot clash with the author's.
func Updating() bool {
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		return true
	}
	return os.Getenv("CMPC_UPDATE_GOLDENS") == "1"
}

// Golden renders src through r (the real repo-server and the plugin) and
// fails t, saying what differs object by object, when the manifests are not
// the golden file's; with Updating it rewrites the golden file. A failed
// render fails t with the plugin's error as Argo CD shows it.
func Golden(t testing.TB, r *Renderer, src Source, pluginName, golden string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := r.Render(ctx, src, pluginName)
	if err != nil {
		t.Fatalf("rendering %s: %v", src, err)
	}
	diff, err := MatchGolden(res.Manifests, golden, Updating())
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Errorf("%s renders other objects than %s (-update rewrites it):\n%s", src, golden, diff)
	}
}
